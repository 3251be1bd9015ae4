/// The executor's side of a plan that asks the remote cache (`RowPlan.Action.askRemote`): it
/// asks (`ThumbnailCache.pull`, which stores what the remote gives in the local cache), then
/// has the row planned again with the question marked asked, until the plan asks nothing.
/// Each question is asked at most once a row, so this ends.
enum RemoteAsking {
    /// `plan`, or, when it asks the remote cache, the plan `replan` makes once `planner`'s
    /// cache has asked; `replan` plans the row with the planner it is given.
    static func settled(_ plan: RowPlan, planner: RowPlanner, replan: (RowPlanner) -> RowPlan) -> RowPlan {
        var plan = plan
        var planner = planner
        while plan.action == .askRemote, let query = plan.remoteQuery, let cache = planner.cache,
              !planner.remoteAsked.contains(query) {
            cache.pull(query, maxBytes: planner.limits.maxInputBytes)
            planner.remoteAsked.insert(query)
            plan = replan(planner)
        }
        return plan
    }
}
