import Foundation

/// Path handling for configuration files: relative paths inside a file mean "next to the file".
enum ConfigurationPath {
    /// `path` resolved against `directory` unless it is absolute; unchanged without a directory.
    static func resolve(_ path: String, against directory: String?) -> String {
        guard let directory, !path.hasPrefix("/") else { return path }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true))
            .standardizedFileURL.path
    }

    /// `directory/name`, without doubling a trailing slash.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The folder holding `file`, absolute.
    static func directory(of file: String) -> String {
        URL(fileURLWithPath: file).standardizedFileURL.deletingLastPathComponent().path
    }
}
