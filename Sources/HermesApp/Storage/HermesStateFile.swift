import Foundation

/// A small JSON file holding one value of app state, replaced atomically on every save so
/// a crash leaves either the old or the new value, never half of one.
///
/// On Apple platforms this would live in the app's Application Support folder.
public struct HermesStateFile<Value: Codable & Sendable>: Sendable {
    /// Where the value is kept.
    public let url: URL

    /// The state kept at `url`.
    public init(url: URL) {
        self.url = url
    }

    /// The saved value, or nil when nothing was saved yet.
    ///
    /// - Throws: ``HermesStateFileError`` when the file exists but cannot be read or decoded.
    public func load() throws(HermesStateFileError) -> Value? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(contentsOf: url))
        } catch {
            throw .unreadable(path: url.path, detail: "\(error)")
        }
    }

    /// Saves `value`, replacing the file in one rename.
    ///
    /// - Throws: ``HermesStateFileError`` when the folder is not writable.
    public func save(_ value: Value) throws(HermesStateFileError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(value).write(to: url, options: .atomic)
        } catch {
            throw .unwritable(path: url.path, detail: "\(error)")
        }
    }
}

/// Why app state could not be loaded or saved.
public enum HermesStateFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but is not the expected JSON.
    case unreadable(path: String, detail: String)
    /// The file could not be written.
    case unwritable(path: String, detail: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let detail): "cannot read app state \(path): \(detail); delete it to start over"
        case .unwritable(let path, let detail): "cannot save app state \(path): \(detail)"
        }
    }
}
