import APNsCore
import Testing

/// The form of a channel id: padded standard base64 of at least one byte.
struct ChannelIDSyntaxTests {
    @Test(arguments: ["dHN0LXNyY2gtY2hubA==", "AA==", "AAA=", "AAAA", "ab+/"])
    func wellFormedIDs(_ id: String) {
        #expect(ChannelIDSyntax.isWellFormed(id))
    }

    @Test(arguments: ["", "A", "AAA", "A===", "====", "not base64!", "ab-_", "AB==", "AAB=", " AA=="])
    func malformedIDs(_ id: String) {
        #expect(!ChannelIDSyntax.isWellFormed(id), "\(id)")
    }
}
