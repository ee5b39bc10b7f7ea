import APNsCore
import Testing

struct KnownStringsTests {
    @Test func containsExactlyTheListedStrings() {
        let known: KnownStrings = ["alert", "badge", "sound", "thread-id", "", "é"]
        for listed in ["alert", "badge", "sound", "thread-id", "", "é"] { #expect(known.contains(listed), "\(listed)") }
        // Same length, other bytes; a prefix; longer than any; another normalization of é.
        for other in ["alerT", "badg", "soundx", "thread-id-long-key", "e\u{301}", "x"] {
            #expect(!known.contains(other), "\(other)")
        }
        #expect(APNsPayloadKey.known.contains(APNsPayloadKey.contentAvailable) && !APNsPayloadKey.known.contains("content_available"))
    }
}
