/// The field names of the control API's own answers, defined once (docs/control-api.md).
/// Registry, device, key and fault bodies use the configuration file's names
/// (``ConfigurationKey`` and its sections); capture records, the capture format's.
enum ControlBodyKey {
    /// `GET /healthz`: `{"status":"ok"}`.
    static let status = "status"
    /// Every error: `{"error":"<what is wrong>"}`.
    static let error = "error"
    /// `GET /pushes` and `/pushes/wait`: how many records `pushes` holds.
    static let count = "count"
    /// `GET /pushes` and `/pushes/wait`: the records.
    static let pushes = "pushes"
    /// `GET /pushes/wait`: whether `count` matching pushes arrived in time.
    static let satisfied = "satisfied"
    /// `GET /profiles`: the list, and each profile's `name` and `description`.
    static let profiles = "profiles"
    static let name = "name"
    static let description = "description"
    /// `GET /pushes/{seq}/findings`: the push's `seq`, the `profile` and its `findings`.
    static let seq = "seq"
    static let profile = "profile"
    static let findings = "findings"
    /// `GET /pushes/reasons`: the counts, and per reason its `reason`, `status` and `count`.
    static let total = "total"
    static let accepted = "accepted"
    static let rejected = "rejected"
    static let injected = "injected"
    static let reasons = "reasons"
    static let reason = "reason"
}
