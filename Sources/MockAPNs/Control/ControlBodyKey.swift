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
}
