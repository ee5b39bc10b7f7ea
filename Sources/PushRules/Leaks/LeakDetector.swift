/// A kind of content that must not travel in a push: each one flags strings that look like
/// content rather than an identifier. Names are the `detector` of a finding and the names a
/// policy file lists.
public enum LeakDetector: String, Sendable, Hashable, CaseIterable {
    /// `someone@example.com`.
    case email
    /// A URL with a path or query (`https://host/a/b`, `app://x?y=1`); a bare origin passes.
    case url
    /// `/etc/passwd`, `~/notes`, `./run.sh`, `src/main.py`, `C:\Users`.
    case filePath = "file-path"
    /// `rm -rf /tmp/x`, `ls | wc`, `$(id)`, `` `id` ``, `a && b`.
    case shellCommand = "shell-command"
    /// Three base64url segments starting `eyJ`.
    case jwt
    /// Keys with a vendor prefix: `sk-…`, `ghp_…`, `xoxb-…`, `AKIA…`, `AIza…`, `glpat-…`.
    case apiKey = "api-key"
    /// A long run of hex digits, or of mixed-case base64 with digits.
    case secret
    /// IPv4 dotted quads and IPv6 addresses.
    case ipAddress = "ip-address"
    /// Phone numbers: 9 to 15 digits written with `+`, spaces, dashes or parentheses.
    case phoneNumber = "phone-number"
    /// Sentences: many words, or a long string of several words.
    case freeText = "free-text"

    /// What a finding says for this detector.
    var message: String {
        switch self {
        case .email: "looks like an e-mail address"
        case .url: "holds a URL with a path or query"
        case .filePath: "holds a file path"
        case .shellCommand: "looks like a shell command"
        case .jwt: "holds a JWT"
        case .apiKey: "holds an API key"
        case .secret: "holds a long hex or base64 string, likely a secret"
        case .ipAddress: "holds an IP address"
        case .phoneNumber: "looks like a phone number"
        case .freeText: "looks like free text, not an identifier"
        }
    }
}
