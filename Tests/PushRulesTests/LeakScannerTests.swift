import PushRules
import Testing

/// Each leak detector fires on content and stays quiet on identifiers and fixed copy.
struct LeakScannerTests {
    static let examples: [(LeakDetector, fires: [String], quiet: [String])] = [
        (.email, ["ann@example.com", "mail ann.b+x@mail.example.org now"], ["@here", "a@b", "user@localhost"]),
        (.url, ["https://example.com/a/b", "see http://x.io?q=1", "hermes://session/abc"], ["https://example.com", "https://example.com/"]),
        (.filePath, ["/etc/passwd", "open ~/notes.txt", "./run.sh", "src/main.py", #"C:\Users\ann"#, "/tmp/x"],
         ["and/or", "1/2", "sess-1", "HERMES_APPROVAL"]),
        (.shellCommand, ["rm -rf /tmp/x", "ls | wc -l", "echo $(id)", "run `id` now", "make && make install", "sudo reboot",
                         "please run rm -rf build"],
         ["Hermes needs your approval", "cat", "Turn complete", "make sense of it"]),
        (.jwt, ["eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJBIn0.c2lnbmF0dXJl"], ["eyJ", "a.b.c"]),
        (.apiKey, ["sk-abcdefghijklmnopqrstuvwx", "ghp_abcdefghijklmnopqrstuvwxyz0123", "AKIAABCDEFGHIJKLMNOP",
                   "key xoxb-1234567890-abcdef"], ["sk-1", "AKIA", "ghp_short"]),
        (.secret, [String(repeating: "ab12", count: 8), "aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldCBrZXkgMTIz"],
         ["8a2f1e3c-0000-4000-8000-00000000abcd", "20261130_154126_a1b2c3", String(repeating: "ab", count: 15)]),
        (.ipAddress, ["10.0.0.1", "host 192.168.1.20 down", "fe80::1", "2001:db8:0:0:0:0:0:1"],
         ["1.2.3", "10:30:00", "999.1.1.1", "v1.2.3.4.5"]),
        (.phoneNumber, ["+1 415 555 0100", "(415) 555-0100", "+441234567890"], ["12345", "2026-11-30", "1234567890"]),
        (.freeText, ["Please approve the deployment of the new build to production", String(repeating: "word ", count: 30)],
         ["Hermes needs your approval", String(repeating: "s", count: 128)]),
    ]

    @Test(arguments: examples.indices)
    func detectorFiresOnContentAndNotOnIdentifiers(index: Int) {
        let (detector, fires, quiet) = Self.examples[index]
        let scanner = LeakScanner(detectors: [detector])
        for text in fires { #expect(scanner.scan(text) == [detector], "\(detector.rawValue) should fire on \(text)") }
        for text in quiet { #expect(scanner.scan(text).isEmpty, "\(detector.rawValue) should not fire on \(text)") }
    }

    @Test func theContractsFixedCopyIsClean() {
        let scanner = LeakScanner()
        for text in ["Approval needed", "Hermes needs your approval", "Input needed", "Hermes needs more information",
                     "Turn complete", "Hermes finished the turn", "Hermes hit an error", "Hermes ran into a problem",
                     "HERMES_APPROVAL", "default", "approval", "sess-1"] {
            #expect(scanner.scan(text).isEmpty, "\(text)")
        }
    }

    @Test func thresholdsAreConfigurable() {
        var thresholds = LeakThresholds.default
        thresholds.freeTextWords = 3
        #expect(LeakScanner(detectors: [.freeText], thresholds: thresholds).scan("Hermes needs approval") == [.freeText])
        thresholds.secretHexLength = 8
        #expect(LeakScanner(detectors: [.secret], thresholds: thresholds).scan("id deadbeef") == [.secret])
        thresholds.phoneDigits = 12
        #expect(LeakScanner(detectors: [.phoneNumber], thresholds: thresholds).scan("+1 415 555 0100").isEmpty)
    }

    @Test func aJWTIsNotAlsoReportedAsASecret() {
        let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzk1OTU4NzkzfQ.c2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJl"
        #expect(LeakScanner().scan(jwt) == [.jwt])
    }
}
