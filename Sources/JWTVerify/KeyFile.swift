import Foundation

/// Reads a key file as text, with an error that names the path.
func readKeyFile(_ path: String) throws(ES256KeyError) -> String {
    do {
        return try String(contentsOfFile: path, encoding: .utf8)
    } catch {
        throw ES256KeyError(.unreadableFile, "cannot read key file '\(path)': \(error.localizedDescription)")
    }
}
