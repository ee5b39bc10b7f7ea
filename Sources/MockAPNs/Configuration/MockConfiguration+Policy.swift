import Foundation
import PushRules

extension MockConfiguration {
    /// The most read from a policy file, as push-inspect reads at most this much of one.
    public static let maximumPolicyFileSize = 1 << 20

    /// Reads a push-inspect policy file (docs/push-inspect.md) for the control API to offer
    /// as a profile under its `name`.
    ///
    /// - Parameters:
    ///   - file: the policy file.
    ///   - path: what gave the file (`--policy`, `policy_file`), for the error.
    /// - Throws: ``ConfigurationError`` when the file cannot be read or is not a policy
    ///   (a built-in profile's name included).
    public static func loadPolicy(file: String, path: String) throws(ConfigurationError) -> Policy {
        if let problem = ConfigurationFileCheck.problemReading(file) {
            throw ConfigurationError(.unreadableFile, path: path, "cannot read policy file '\(file)': \(problem)")
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw ConfigurationError(.unreadableFile, path: path, "cannot read policy file '\(file)': \(error.localizedDescription)")
        }
        guard bytes.count <= maximumPolicyFileSize else {
            throw ConfigurationError(.invalidValue, path: path, "policy file '\(file)' is larger than \(maximumPolicyFileSize >> 20) MiB")
        }
        do {
            // A policy may not take a built-in profile's name (the reader says so), so the
            // profiles the control API offers stay apart.
            return try Policy(json: bytes)
        } catch {
            throw ConfigurationError(.invalidValue, path: path, "policy file '\(file)': \(error)")
        }
    }
}
