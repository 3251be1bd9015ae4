/// The executor's side of a plan that asks the remote cache (`RowPlan.Action.askRemote`): it
/// asks (`ThumbnailCache.pull`, which stores what the remote gives in the local cache), then
/// has the row planned again with the question marked asked, until the plan asks nothing.
/// Each question is asked at most once a row, so this ends.
enum RemoteAsking {
    /// The plan `make` makes with `planner`, made again each time it asks the remote cache
    /// something new, once `planner`'s cache has asked it.
    static func plan(by planner: RowPlanner, _ make: (RowPlanner) -> RowPlan) -> RowPlan {
        var plan = make(planner)
        guard plan.action == .askRemote else { return plan }
        // Copied only to ask: a copy for every row retained the planner's cache, journal and
        // folders for nothing.
        var planner = planner
        while plan.action == .askRemote, let query = plan.remoteQuery, let cache = planner.cache,
              !planner.remoteAsked.contains(query) {
            cache.pull(query, maxBytes: planner.limits.maxInputBytes)
            planner.remoteAsked.insert(query)
            plan = make(planner)
        }
        return plan
    }
}
