/// A problem with what push-inspect was asked to read: a missing file, a payload that is
/// not JSON, a mock that cannot be reached. The run exits with 2.
struct InputError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
