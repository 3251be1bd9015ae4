/// `--shard auto`: the shard an array job's engine says this process is, read from the
/// variables the engine sets (docs/cache.md, "Sharding").
///
/// | engine | index | count |
/// |---|---|---|
/// | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` | `auto/N` (the Job's `completions`) |
/// | Slurm job array | `SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN`, divided by `SLURM_ARRAY_TASK_STEP` | `SLURM_ARRAY_TASK_COUNT` |
/// | AWS Batch array job | `AWS_BATCH_JOB_ARRAY_INDEX` | `auto/N` (the array's size) |
///
/// A CI matrix sets none of these: its jobs give `--shard I/N` with the matrix's values.
public enum ShardEnvironment {
    /// The variables each engine sets, by the engine's name.
    static let engines: [(variable: String, engine: String)] = [
        ("JOB_COMPLETION_INDEX", "Kubernetes"),
        ("SLURM_ARRAY_TASK_ID", "Slurm"),
        ("AWS_BATCH_JOB_ARRAY_INDEX", "AWS Batch"),
    ]

    /// The shard `--shard TEXT` names: `I/N`, or `auto`/`auto/N` read from `environment`.
    public static func shard(_ text: String, environment: [String: String]) throws(ShardError) -> Shard {
        guard text == "auto" || text.hasPrefix("auto/") else { return try Shard(parsing: text) }
        var given: Int?
        if text != "auto" {
            guard let count = Shard.number(text.dropFirst(5)) else { throw .malformed(text) }
            given = count
        }
        let present = engines.filter { environment[$0.variable] != nil }
        guard let found = present.first else { throw .noEngine }
        guard present.count == 1 else { throw .ambiguous(present.map(\.variable)) }
        func number(_ name: String) throws(ShardError) -> Int? {
            guard let value = environment[name] else { return nil }
            guard let number = Shard.number(Substring(value)) else {
                throw .badVariable(name, "is '\(value)', not a whole number")
            }
            return number
        }
        let variable = found.variable
        guard let index = try number(variable) else { throw .badVariable(variable, "is not set") }
        switch variable {
        case "SLURM_ARRAY_TASK_ID":
            return try slurm(id: index, given: given, number: number)
        default:
            guard let given else { throw .countNeeded(variable) }
            return try Shard(index: index, count: given, from: "\(variable)=\(index) with --shard \(text)")
        }
    }

    /// Slurm numbers an array's tasks as `--array` says (`1-8`, `0-30:2`), so the task's place
    /// in the range is the index: `(ID - MIN) / STEP`. A list (`--array=1,3,7`) cannot be
    /// numbered from the environment, and is refused when its count does not fit a range.
    private static func slurm(id: Int, given: Int?, number: (String) throws(ShardError) -> Int?)
        throws(ShardError) -> Shard
    {
        let low = try number("SLURM_ARRAY_TASK_MIN") ?? 0
        let step = try number("SLURM_ARRAY_TASK_STEP") ?? 1
        guard step >= 1 else { throw .badVariable("SLURM_ARRAY_TASK_STEP", "is 0") }
        let told = try number("SLURM_ARRAY_TASK_COUNT")
        if let told, let given, told != given {
            throw .outOfRange("SLURM_ARRAY_TASK_COUNT", "is \(told), but --shard auto/\(given) says \(given)")
        }
        guard let count = told ?? given else { throw .countNeeded("SLURM_ARRAY_TASK_ID") }
        guard id >= low, (id - low) % step == 0 else {
            throw .outOfRange("SLURM_ARRAY_TASK_ID", "is \(id), not in the array \(low)-…:\(step)")
        }
        if let high = try number("SLURM_ARRAY_TASK_MAX"), high < low || (high - low) / step + 1 != count {
            throw .outOfRange("SLURM_ARRAY_TASK_COUNT", "is \(count), but the array runs from \(low) to \(high) "
                              + "by \(step): give a range (--array=0-\(count - 1)), not a list")
        }
        return try Shard(index: (id - low) / step, count: count,
                         from: "SLURM_ARRAY_TASK_ID=\(id) (array from \(low) by \(step), \(count) tasks)")
    }
}
