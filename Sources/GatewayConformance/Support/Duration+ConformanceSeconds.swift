import Foundation

extension Duration {
    /// The duration in seconds, as URLSession, the mock's control API and the reports take it.
    var conformanceSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Seconds with three decimals, for a check's details (`4.012 s`).
    var conformanceText: String {
        let milliseconds = (conformanceSeconds * 1000).rounded()
        return String(format: "%.3f s", milliseconds / 1000)
    }
}
