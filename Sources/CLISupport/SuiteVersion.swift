/// The suite's version, which every command prints for `--version` and in its banner.
///
/// Defined once: the commands ship together, and CHANGELOG.md starts its entries at this value.
public enum SuiteVersion {
    /// Semantic version of the release this source tree is.
    public static let current = "0.3.0"
}
