/// Where the fuzz targets find the suite's own files (the test certificates, example
/// configuration): the checkout this package was built from.
public enum FuzzPaths {
    /// The repository root, two folders above the fuzz package's `Sources/FuzzSupport`.
    public static let repository: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)  // Fuzz/Sources/FuzzSupport/FuzzPaths.swift
        return parts.joined(separator: "/")
    }()

    /// A path inside the repository.
    public static func file(_ relative: String) -> String { repository + "/" + relative }
}
