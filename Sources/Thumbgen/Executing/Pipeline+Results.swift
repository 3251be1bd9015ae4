/// Rows' results handed on: one at a time, or a batch's together (`Settlements`), each row
/// leaving its place in the admission gate and its claims as it goes.
extension Pipeline {
    /// Reports a row that failed before it could become a job (a bad row in the manifest). It
    /// passes the admission gate like any row, so that bad rows cannot pile up in the report
    /// behind a slow one.
    public func reject(_ result: RowResult) {
        admit(row: result.row)
        rows.enter()
        deliver(result)
    }

    /// Hands an admitted row's result on, and gives its place back; `batch`, while its work
    /// item runs, takes the result to hand on with the others it collects.
    func deliver(_ result: RowResult, settling batch: Settlements? = nil) {
        if batch?.add(result) == true { return }
        delivery.claims?.settle(row: result.row)
        delivery.weights?.ended(row: result.row)
        gate.leave(row: result.row)
        onResults([result])
        rows.leave()
    }

    /// Settles the rows `batch` collected (their claims, their places in the gate) and hands
    /// their results on, at once.
    func settle(_ batch: Settlements) {
        let results = batch.close()
        guard !results.isEmpty else { return }
        let rows = results.map(\.row)
        delivery.claims?.settle(rows: rows)
        for row in rows { delivery.weights?.ended(row: row) }
        gate.leave(rows: rows)
        onResults(results)
        for _ in results { self.rows.leave() }
    }
}
