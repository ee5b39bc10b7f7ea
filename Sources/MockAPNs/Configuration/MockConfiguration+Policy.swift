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
    /// - Throws: ``ConfigurationError`` when the file cannot be read, is not a policy, or is
    ///   named as a built-in profile is (its findings could not be told apart).
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
        let policy: Policy
        do {
            policy = try Policy(json: bytes)
        } catch {
            throw ConfigurationError(.invalidValue, path: path, "policy file '\(file)': \(error)")
        }
        if BuiltInProfile(rawValue: policy.name) != nil {
            throw ConfigurationError(.invalidValue, path: path, "policy file '\(file)' is named \"\(policy.name)\", "
                + "as a built-in profile is; give it another \"name\"")
        }
        return policy
    }
}
