/// Hand-written scanners for the leak detectors: one pass or a few over a string's UTF-8
/// bytes each, no regex engine, no allocation.
///
/// They are heuristics, tuned to flag content (sentences, commands, secrets, contact data)
/// and to pass identifiers (UUIDs, `sess-1`, fixed copy such as "Hermes needs your approval").
public struct LeakScanner: Sendable, Hashable {
    /// The detectors that run.
    public var detectors: Set<LeakDetector> {
        didSet { enabled = Self.mask(detectors) }
    }
    /// Their limits.
    public var thresholds: LeakThresholds
    /// `detectors` as bits in ``order``: tested per string without hashing.
    private var enabled: UInt16

    /// A scanner running `detectors` with `thresholds`.
    public init(detectors: Set<LeakDetector> = Set(LeakDetector.allCases), thresholds: LeakThresholds = .default) {
        self.detectors = detectors
        self.thresholds = thresholds
        self.enabled = Self.mask(detectors)
    }

    /// The detectors in the order they run (`allCases` builds a new array on each use).
    private static let order: [LeakDetector] = LeakDetector.allCases

    private static func mask(_ detectors: Set<LeakDetector>) -> UInt16 {
        var mask: UInt16 = 0
        for (index, detector) in order.enumerated() where detectors.contains(detector) { mask |= 1 << UInt16(index) }
        return mask
    }

    /// The detectors that fire on `text`, in ``LeakDetector/allCases`` order. A JWT or API
    /// key is not also reported as a generic secret.
    public func scan(_ text: String) -> [LeakDetector] {
        var text = text
        return text.withUTF8 { scan($0) }
    }

    /// The detectors that fire on UTF-8 `bytes`.
    public func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [LeakDetector] {
        var fired: [LeakDetector] = []
        if bytes.isEmpty { return fired }
        // One pass gathers what each detector needs to have any chance; most strings (fixed
        // copy, identifiers) leave here without running a single detector.
        let traits = Traits(bytes)
        for (index, detector) in Self.order.enumerated() where enabled & (1 << UInt16(index)) != 0 {
            let hit: Bool
            switch detector {
            case .email: hit = traits.at && Self.hasEmail(bytes)
            case .url: hit = traits.colons > 0 && traits.slash && Self.hasURLWithPath(bytes)
            case .filePath: hit = (traits.slash || traits.backslash) && Self.hasFilePath(bytes)
            case .shellCommand: hit = (traits.shellOperator || traits.words > 1) && Self.hasShellCommand(bytes)
            case .jwt: hit = traits.dot && traits.longestRun >= 10 && Self.hasJWT(bytes)
            case .apiKey: hit = traits.longestRun >= 14 && Self.hasAPIKey(bytes)
            case .secret:
                hit = !fired.contains(.jwt) && !fired.contains(.apiKey)
                    && traits.longestRun >= min(thresholds.secretHexLength, thresholds.secretBase64Length)
                    && Self.hasSecret(bytes, hex: thresholds.secretHexLength, base64: thresholds.secretBase64Length)
            case .ipAddress: hit = (traits.dot && traits.digits >= 4 || traits.colons >= 2) && Self.hasIPAddress(bytes)
            case .phoneNumber:
                hit = traits.digits >= thresholds.phoneDigits && Self.hasPhoneNumber(bytes, minimumDigits: thresholds.phoneDigits)
            case .freeText: hit = Self.isFreeText(length: bytes.count, words: traits.words, thresholds: thresholds)
            }
            if hit { fired.append(detector) }
        }
        return fired
    }

    /// What one pass over a string learns, to skip detectors that cannot fire.
    private struct Traits {
        var at = false, slash = false, backslash = false, dot = false, shellOperator = false
        var colons = 0, digits = 0, words = 0, longestRun = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            var run = 0
            var inWord = false, wordHasLetter = false
            for byte in bytes {
                if base64Any.contains(byte) {
                    run += 1
                    if run > longestRun { longestRun = run }
                } else {
                    run = 0
                }
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
                case UInt8(ascii: "@"): at = true
                case UInt8(ascii: "/"): slash = true
                case UInt8(ascii: "\\"): backslash = true
                case UInt8(ascii: "."): dot = true
                case UInt8(ascii: ":"): colons += 1
                case UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: "&"), UInt8(ascii: "|"): shellOperator = true
                default: break
                }
                if ByteSet.whitespace.contains(byte) {
                    if inWord, wordHasLetter { words += 1 }
                    inWord = false
                    wordHasLetter = false
                } else {
                    inWord = true
                    if ByteSet.letters.contains(byte) || byte >= 0x80 { wordHasLetter = true }
                }
            }
            if inWord, wordHasLetter { words += 1 }
        }
    }

    // MARK: Character classes

    private static let emailLocal = ByteSet.alphanumerics.union(ByteSet(ascii: "._%+-"))
    private static let hostChars = ByteSet.alphanumerics.union(ByteSet(ascii: ".-"))
    private static let schemeChars = ByteSet.alphanumerics.union(ByteSet(ascii: "+.-"))
    private static let base64URL = ByteSet.alphanumerics.union(ByteSet(ascii: "_-"))
    private static let base64Any = ByteSet.alphanumerics.union(ByteSet(ascii: "+/_-"))
    private static let keyChars = ByteSet.alphanumerics.union(ByteSet(ascii: "_-"))
    private static let pathChars = ByteSet.alphanumerics.union(ByteSet(ascii: "._-~+@%"))
    private static let tokenSeparators = ByteSet.whitespace.union(ByteSet(ascii: "\"'()<>,;"))
    private static let phoneSeparators = ByteSet(ascii: " -()")

    // MARK: Detectors

    static func hasEmail(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for at in 0..<bytes.count where bytes[at] == UInt8(ascii: "@") {
            var start = at
            while start > 0, emailLocal.contains(bytes[start - 1]) { start -= 1 }
            guard start < at else { continue }
            var end = at + 1
            var lastDot = -1
            while end < bytes.count, hostChars.contains(bytes[end]) {
                if bytes[end] == UInt8(ascii: ".") { lastDot = end }
                end += 1
            }
            // A domain: a dot with a label before it and at least two letters after it.
            guard lastDot > at + 1, end - lastDot > 2 else { continue }
            var tldLetters = true
            for index in (lastDot + 1)..<end where !ByteSet.letters.contains(bytes[index]) { tldLetters = false }
            if tldLetters { return true }
        }
        return false
    }

    static func hasURLWithPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index + 2 < bytes.count {
            guard bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                bytes[index + 2] == UInt8(ascii: "/")
            else {
                index += 1
                continue
            }
            var start = index
            while start > 0, schemeChars.contains(bytes[start - 1]) { start -= 1 }
            // A scheme starts with a letter and has at least two characters (not `C:`).
            if index - start >= 2, ByteSet.letters.contains(bytes[start]) {
                var cursor = index + 3
                while cursor < bytes.count, !ByteSet.whitespace.contains(bytes[cursor]),
                    bytes[cursor] != UInt8(ascii: "/"), bytes[cursor] != UInt8(ascii: "?"), bytes[cursor] != UInt8(ascii: "#")
                {
                    cursor += 1
                }
                if cursor < bytes.count {
                    if bytes[cursor] == UInt8(ascii: "?") { return true }
                    if bytes[cursor] == UInt8(ascii: "/"), cursor + 1 < bytes.count,
                        !ByteSet.whitespace.contains(bytes[cursor + 1])
                    {
                        return true
                    }
                }
            }
            index += 3
        }
        return false
    }

    static func hasFilePath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        forEachToken(bytes) { token in
            found = isFilePath(token)
            return found
        }
        return found
    }

    private static func isFilePath(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = token.count
        guard count >= 2 else { return false }
        // Windows drive paths: `C:\…`.
        if count >= 3, ByteSet.letters.contains(token[0]), token[1] == UInt8(ascii: ":"), token[2] == UInt8(ascii: "\\") {
            return true
        }
        var slashes = 0
        for index in 0..<count {
            if token[index] == UInt8(ascii: "/") {
                slashes += 1
            } else if token[index] == UInt8(ascii: ":"), index + 2 < count, token[index + 1] == UInt8(ascii: "/"),
                token[index + 2] == UInt8(ascii: "/")
            {
                return false  // a URL, the url detector's business
            } else if !pathChars.contains(token[index]) {
                return false
            }
        }
        guard slashes > 0 else { return false }
        if token[0] == UInt8(ascii: "~"), token[1] == UInt8(ascii: "/") { return count > 2 }
        if token[0] == UInt8(ascii: "."), token[1] == UInt8(ascii: "/") || (count > 2 && token[1] == UInt8(ascii: ".") && token[2] == UInt8(ascii: "/")) {
            return true
        }
        if token[0] == UInt8(ascii: "/") {
            // `/etc/passwd`, `/tmp/x`; a lone `/x` could be a fraction or route, so ask for two
            // segments or a file extension.
            return slashes >= 2 && token[count - 1] != UInt8(ascii: "/") || hasExtension(token)
        }
        // `src/main.py`: relative, with a file extension at the end.
        return hasExtension(token)
    }

    private static func hasExtension(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = token.count - 1
        var length = 0
        while index >= 0, ByteSet.alphanumerics.contains(token[index]) {
            index -= 1
            length += 1
        }
        guard index > 0, token[index] == UInt8(ascii: "."), (1...5).contains(length) else { return false }
        let before = token[index - 1]
        return before != UInt8(ascii: "/") && before != UInt8(ascii: ".")
            && ByteSet.letters.contains(token[index + 1])
    }

    /// Words that start a shell command line (lower case; English words that also name
    /// commands, like `cat`, count only at the start or after an operator).
    private static let commands: Set<String> = [
        "sudo", "rm", "curl", "wget", "git", "ls", "cat", "chmod", "chown", "bash", "sh", "zsh", "python", "python3",
        "pip", "pip3", "npm", "npx", "node", "docker", "kubectl", "ssh", "scp", "mv", "cp", "echo", "grep", "sed",
        "awk", "make", "cd", "export", "eval", "kill", "pkill", "killall", "tar", "find", "xargs", "apt", "apt-get",
        "brew", "systemctl", "mkdir", "touch", "nc", "dd", "mkfs", "swift", "cargo", "go", "psql", "mysql",
    ]

    /// A word of up to 16 bytes packed into two integers, so that looking it up allocates nothing.
    private static func pack(_ word: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard word.count <= 16 else { return nil }
        var low: UInt64 = 0, high: UInt64 = 0
        for (index, byte) in word.enumerated() {
            if index < 8 { low |= UInt64(byte) << (8 * UInt64(index)) } else { high |= UInt64(byte) << (8 * UInt64(index - 8)) }
        }
        return (low, high)
    }

    private static let packedCommands: [(UInt64, UInt64)] = commands.compactMap { word in
        Array(word.utf8).withUnsafeBufferPointer { pack($0) }
    }

    private static let sudo: (UInt64, UInt64)? = Array("sudo".utf8).withUnsafeBufferPointer { pack($0) }

    /// Command names that are also common English words.
    private static let packedEnglishWords: [(UInt64, UInt64)] = [
        "cat", "make", "find", "kill", "echo", "touch", "go", "export", "cd", "swift", "node", "find", "tar", "eval", "apt",
        "brew", "sed",
    ].compactMap { word in Array(word.utf8).withUnsafeBufferPointer { pack($0) } }

    private static func isEnglishWord(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let packed = pack(word) else { return false }
        return packedEnglishWords.contains { $0 == packed }
    }

    /// `-x`, `/path`, `~/x`, `./x`, `$VAR`, `a=b`, `dir/file`, `file.ext`.
    private static func looksLikeArgument(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = token.first else { return false }
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "/") || first == UInt8(ascii: "~") || first == UInt8(ascii: "$") {
            return token.count > 1
        }
        return token.contains(UInt8(ascii: "/")) || token.contains(UInt8(ascii: "="))
            || (token.count > 2 && token.dropFirst().dropLast().contains(UInt8(ascii: ".")))
    }

    private static func isCommandWord(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = word.first, ByteSet.lowercase.contains(first), let packed = pack(word) else { return false }
        return packedCommands.contains { $0 == packed }
    }

    static func hasShellCommand(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Substitutions and operators are unmistakable anywhere.
        for index in 0..<bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "$") where index + 1 < bytes.count && (bytes[index + 1] == UInt8(ascii: "(") || bytes[index + 1] == UInt8(ascii: "{")):
                return true
            case UInt8(ascii: "`"):
                if bytes[(index + 1)...].contains(UInt8(ascii: "`")) { return true }
            case UInt8(ascii: "&"), UInt8(ascii: "|"):
                if index + 1 < bytes.count, bytes[index + 1] == bytes[index] { return true }
                if bytes[index] == UInt8(ascii: "|"), index > 0, bytes[index - 1] == UInt8(ascii: " "),
                    index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: " ")
                {
                    return true
                }
            default: break
            }
        }
        // A command word at the start of the string or after `;`, followed by an argument.
        var atCommandPosition = true
        var previousWasCommand = false
        var found = false
        forEachToken(bytes, separators: ByteSet.whitespace) { token in
            if previousWasCommand {
                found = true
                return true
            }
            var word = token
            var endsStatement = false
            if let last = word.last, last == UInt8(ascii: ";") {
                word = UnsafeBufferPointer(rebasing: word.dropLast())
                endsStatement = true
            }
            let isCommand = Self.isCommandWord(word)
            // Anywhere in a sentence, a command word followed by an option or a path is a
            // command line ("please run rm -rf /tmp").
            if isCommand, let next = nextToken(after: token, in: bytes), let lead = next.first,
                lead == UInt8(ascii: "-") && next.count > 1 || lead == UInt8(ascii: "/") || lead == UInt8(ascii: "~")
            {
                found = true
                return true
            }
            // English words that also name commands ("make sense", "find out") start a
            // command only when an argument-looking token follows.
            if atCommandPosition, !endsStatement, isCommand, Self.isEnglishWord(word) {
                if let next = nextToken(after: token, in: bytes), Self.looksLikeArgument(next) {
                    found = true
                    return true
                }
                atCommandPosition = false
                return false
            }
            previousWasCommand = atCommandPosition && !endsStatement && isCommand
            if let packed = Self.pack(word), let sudo = Self.sudo, packed == sudo { previousWasCommand = true }
            atCommandPosition = endsStatement
            return false
        }
        return found
    }

    static func hasJWT(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == UInt8(ascii: "e"), bytes[index + 1] == UInt8(ascii: "y"), bytes[index + 2] == UInt8(ascii: "J"),
                index == 0 || !base64URL.contains(bytes[index - 1])
            {
                var cursor = index
                var segments = 0
                var segmentLengths: [Int] = []
                while segments < 3 {
                    let start = cursor
                    while cursor < bytes.count, base64URL.contains(bytes[cursor]) { cursor += 1 }
                    segmentLengths.append(cursor - start)
                    segments += 1
                    guard segments < 3, cursor < bytes.count, bytes[cursor] == UInt8(ascii: ".") else { break }
                    cursor += 1
                }
                if segments == 3, segmentLengths[0] >= 10, segmentLengths[1] >= 2 { return true }
            }
            index += 1
        }
        return false
    }

    private static let keyPrefixes: [(prefix: [UInt8], minimumRest: Int, restChars: ByteSet)] = [
        (Array("sk-".utf8), 16, keyChars), (Array("sk_live_".utf8), 16, keyChars), (Array("sk_test_".utf8), 16, keyChars),
        (Array("pk_live_".utf8), 16, keyChars), (Array("rk_live_".utf8), 16, keyChars),
        (Array("ghp_".utf8), 20, keyChars), (Array("gho_".utf8), 20, keyChars), (Array("ghs_".utf8), 20, keyChars),
        (Array("github_pat_".utf8), 20, keyChars), (Array("glpat-".utf8), 20, keyChars),
        (Array("xoxb-".utf8), 10, keyChars), (Array("xoxp-".utf8), 10, keyChars), (Array("xapp-".utf8), 10, keyChars),
        (Array("AKIA".utf8), 16, ByteSet.uppercase.union(ByteSet.digits)), (Array("AIza".utf8), 30, keyChars),
    ]

    static func hasAPIKey(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for start in 0..<bytes.count where start == 0 || !ByteSet.alphanumerics.contains(bytes[start - 1]) {
            for (prefix, minimumRest, restChars) in keyPrefixes where bytes[start] == prefix[0] {
                guard start + prefix.count + minimumRest <= bytes.count else { continue }
                var matched = true
                for offset in 1..<prefix.count where bytes[start + offset] != prefix[offset] {
                    matched = false
                    break
                }
                guard matched else { continue }
                var cursor = start + prefix.count
                while cursor < bytes.count, restChars.contains(bytes[cursor]) { cursor += 1 }
                if cursor - start - prefix.count >= minimumRest { return true }
            }
        }
        return false
    }

    static func hasSecret(_ bytes: UnsafeBufferPointer<UInt8>, hex: Int, base64: Int) -> Bool {
        var index = 0
        while index < bytes.count {
            guard base64Any.contains(bytes[index]) else {
                index += 1
                continue
            }
            let start = index
            var hexRun = 0, longestHexRun = 0
            var upper = false, lower = false, digit = false
            while index < bytes.count, base64Any.contains(bytes[index]) {
                let byte = bytes[index]
                if ByteSet.hexDigits.contains(byte) {
                    hexRun += 1
                    longestHexRun = max(longestHexRun, hexRun)
                } else {
                    hexRun = 0
                }
                if ByteSet.uppercase.contains(byte) { upper = true }
                else if ByteSet.lowercase.contains(byte) { lower = true }
                else if ByteSet.digits.contains(byte) { digit = true }
                index += 1
            }
            if longestHexRun >= hex { return true }
            if index - start >= base64, upper, lower, digit { return true }
        }
        return false
    }

    static func hasIPAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        hasIPv4(bytes) || hasIPv6(bytes)
    }

    private static func hasIPv4(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            guard ByteSet.digits.contains(bytes[index]), index == 0 || !(ByteSet.alphanumerics.contains(bytes[index - 1]) || bytes[index - 1] == UInt8(ascii: ".")) else {
                index += 1
                continue
            }
            var cursor = index
            var octets = 0
            while octets < 4 {
                var value = 0, digits = 0
                while cursor < bytes.count, ByteSet.digits.contains(bytes[cursor]), digits < 4 {
                    value = value * 10 + Int(bytes[cursor] - UInt8(ascii: "0"))
                    digits += 1
                    cursor += 1
                }
                guard (1...3).contains(digits), value <= 255 else { break }
                octets += 1
                if octets < 4 {
                    guard cursor + 1 < bytes.count, bytes[cursor] == UInt8(ascii: "."), ByteSet.digits.contains(bytes[cursor + 1]) else { break }
                    cursor += 1
                }
            }
            if octets == 4, cursor == bytes.count || !(ByteSet.alphanumerics.contains(bytes[cursor])
                || (bytes[cursor] == UInt8(ascii: ".") && cursor + 1 < bytes.count && ByteSet.digits.contains(bytes[cursor + 1])))
            {
                return true
            }
            index = max(cursor, index + 1)
        }
        return false
    }

    private static func hasIPv6(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        forEachToken(bytes) { token in
            var colons = 0, doubleColon = false, hexLetters = false, groupLength = 0
            for index in 0..<token.count {
                let byte = token[index]
                if byte == UInt8(ascii: ":") {
                    colons += 1
                    if index > 0, token[index - 1] == UInt8(ascii: ":") { doubleColon = true }
                    groupLength = 0
                } else if ByteSet.hexDigits.contains(byte) {
                    groupLength += 1
                    if groupLength > 4 { return false }
                    if !ByteSet.digits.contains(byte) { hexLetters = true }
                } else if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "[") {
                    continue
                } else {
                    return false
                }
            }
            // `10:30:00` is a time; an address has `::` or seven colons, and hex somewhere.
            found = colons >= 2 && (doubleColon && (hexLetters || token.count > 3) || colons == 7)
            return found
        }
        return found
    }

    static func hasPhoneNumber(_ bytes: UnsafeBufferPointer<UInt8>, minimumDigits: Int) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let startsNumber = byte == UInt8(ascii: "+") || byte == UInt8(ascii: "(") || ByteSet.digits.contains(byte)
            guard startsNumber, index == 0 || !ByteSet.alphanumerics.contains(bytes[index - 1]) && bytes[index - 1] != UInt8(ascii: ".") else {
                index += 1
                continue
            }
            let plus = byte == UInt8(ascii: "+")
            var cursor = plus ? index + 1 : index
            var digits = 0, separators = 0
            while cursor < bytes.count {
                let current = bytes[cursor]
                if ByteSet.digits.contains(current) {
                    digits += 1
                } else if phoneSeparators.contains(current) {
                    // Two separators in a row end the number ("12 - 34" is not one).
                    if cursor > index, phoneSeparators.contains(bytes[cursor - 1]), current != UInt8(ascii: "("),
                        bytes[cursor - 1] != UInt8(ascii: ")")
                    {
                        break
                    }
                    separators += 1
                } else {
                    break
                }
                cursor += 1
            }
            let boundary = cursor == bytes.count || !ByteSet.alphanumerics.contains(bytes[cursor])
            if boundary, (minimumDigits...15).contains(digits), plus || separators > 0 { return true }
            index = max(cursor, index + 1)
        }
        return false
    }

    /// Sentences, not identifiers: many words, or a long string of more than one word (a
    /// long single token is an identifier or a secret, which other detectors judge).
    static func isFreeText(length: Int, words: Int, thresholds: LeakThresholds) -> Bool {
        words >= thresholds.freeTextWords || (length >= thresholds.freeTextLength && words >= 2)
    }

    // MARK: Tokens

    /// The whitespace-separated token after `token` (a slice of `bytes`), if any.
    private static func nextToken(after token: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let tokenBase = token.baseAddress, let base = bytes.baseAddress else { return nil }
        var index = tokenBase - base + token.count
        while index < bytes.count, !ByteSet.whitespace.contains(bytes[index]) { index += 1 }
        while index < bytes.count, ByteSet.whitespace.contains(bytes[index]) { index += 1 }
        let start = index
        while index < bytes.count, !ByteSet.whitespace.contains(bytes[index]) { index += 1 }
        return index > start ? UnsafeBufferPointer(rebasing: bytes[start..<index]) : nil
    }

    /// Calls `body` with each run of bytes between separators until it returns true.
    private static func forEachToken(
        _ bytes: UnsafeBufferPointer<UInt8>, separators: ByteSet = tokenSeparators,
        _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        var index = 0
        while index < bytes.count {
            while index < bytes.count, separators.contains(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !separators.contains(bytes[index]) { index += 1 }
            if index > start {
                var end = index
                // Trailing sentence punctuation is not part of a path or address.
                while end > start + 1, bytes[end - 1] == UInt8(ascii: ".") || bytes[end - 1] == UInt8(ascii: "!")
                    || bytes[end - 1] == UInt8(ascii: "?")
                {
                    end -= 1
                }
                if body(UnsafeBufferPointer(rebasing: bytes[start..<end])) { return }
            }
        }
    }
}
