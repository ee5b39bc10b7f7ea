import APNsCore
import Foundation
import Testing

@Suite struct APNsModelTests {
    @Test func pushTypesRequireTheirTopicSuffix() {
        #expect(APNsPushType.allCases.count == 11)
        let expected: [APNsPushType: String] = [
            .alert: "", .background: "", .voip: ".voip", .complication: ".complication",
            .fileprovider: ".pushkit.fileprovider", .liveactivity: ".push-type.liveactivity",
            .location: ".location-query", .pushtotalk: ".voip-ptt", .widgets: ".push-type.widgets",
            .controls: ".push-type.controls", .mdm: "",
        ]
        for type in APNsPushType.allCases {
            #expect(type.topicSuffix == expected[type], "\(type)")
            if !type.topicSuffix.isEmpty {
                #expect(type.bundleID(fromTopic: "com.example.app" + type.topicSuffix) == "com.example.app")
                #expect(type.bundleID(fromTopic: "com.example.app") == nil, "\(type) without suffix")
            }
        }
        #expect(APNsPushType.alert.bundleID(fromTopic: "com.example.app") == "com.example.app")
        #expect(APNsPushType.alert.bundleID(fromTopic: "com.example.app.voip") == nil)
        #expect(APNsPushType.voip.maxPayloadSize == 5120 && APNsPushType.alert.maxPayloadSize == 4096)
        #expect(APNsPushType(rawValue: "Alert") == nil)
    }

    @Test func aTopicsSuffixImpliesItsPushType() {
        for type in APNsPushType.allCases where !type.topicSuffix.isEmpty {
            #expect(APNsPushType.implied(byTopic: "com.example.app" + type.topicSuffix) == type, "\(type)")
        }
        #expect(APNsPushType.implied(byTopic: "com.example.app") == .alert)
        #expect(APNsPushType.implied(byTopic: ".voip") == .alert, "a suffix alone names no app")
        #expect(APNsPushType.implied(byTopic: "com.example.app.voip-ptt") == .pushtotalk)
        #expect(APNsPushType.implied(byTopic: "") == .alert)
    }

    @Test func priorityAcceptsOnlyTenFiveAndOne() {
        #expect(APNsPriority(headerValue: "10") == .immediately)
        #expect(APNsPriority(headerValue: "5") == .consideringDevicePower)
        #expect(APNsPriority(headerValue: "1") == .prioritizingPowerSavings)
        for bad in ["0", "2", "11", "", "ten", " 5"] { #expect(APNsPriority(headerValue: bad) == nil, "\(bad)") }
    }

    @Test func deviceTokensAreHexOfAnyEvenLengthAndCaseInsensitive() {
        let upper = String(repeating: "AB", count: 32)
        #expect(DeviceToken(upper)?.hex == String(repeating: "ab", count: 32))
        #expect(DeviceToken(upper) == DeviceToken(upper.lowercased()))
        #expect(DeviceToken(String(repeating: "0f", count: 80))?.hex.count == 160)
        for bad in ["", "abc", "zz", "ab cd", String(repeating: "g", count: 64)] { #expect(DeviceToken(bad) == nil, "\(bad)") }
        #expect(DeviceToken("0123456789abcdefABCDEF00")?.hex == "0123456789abcdefabcdef00")
        #expect(DeviceToken(String(repeating: "ab", count: 32))?.masked == "abab…abab")
        #expect(DeviceToken("0123456789")?.masked == "0123…6789")
        #expect(DeviceToken("01234567")?.masked == "********")
    }

    /// Every byte value, at each place of an eight-byte step and of the tail after it.
    @Test func deviceTokensAcceptExactlyTheHexDigitBytes() {
        let hexDigits = Set("0123456789abcdefABCDEF".utf8)
        for byte in UInt8.min...UInt8.max {
            for position in 0..<10 {
                var text = Array("0123456789".utf8)
                text[position] = byte
                let token = text.withUnsafeBufferPointer { DeviceToken(hexUTF8: $0) }
                if hexDigits.contains(byte) {
                    #expect(token?.hex == String(decoding: text, as: UTF8.self).lowercased(), "byte \(byte) at \(position)")
                } else {
                    #expect(token == nil, "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test func generatedIDsAreUniqueLowercaseUUIDs() {
        let generator = APNsIDGenerator()
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = generator.next()
            #expect(APNsIDGenerator.isCanonicalUUID(id))
            #expect(id == id.lowercased())
            #expect(UUID(uuidString: id) != nil)
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
        #expect(!APNsIDGenerator.isCanonicalUUID("not-a-uuid"))
        #expect(!APNsIDGenerator.isCanonicalUUID("123e4567e89b12d3a456426614174000"))
        #expect(APNsIDGenerator.isCanonicalUUID("123E4567-E89B-12D3-A456-426614174000"))
    }

    @Test func canonicalUUIDsAreExactly8_4_4_4_12HexDigitsInAnyCase() {
        let valid = "123e4567-e89b-12d3-a456-426614174000"
        #expect(APNsIDGenerator.isCanonicalUUID(valid))
        #expect(APNsIDGenerator.isCanonicalUUID("ABCDEFAB-CDEF-ABCD-EFAB-CDEFABCDEFAB"))
        #expect(!APNsIDGenerator.isCanonicalUUID(String(valid.dropLast())))
        #expect(!APNsIDGenerator.isCanonicalUUID(valid + "0"))
        #expect(!APNsIDGenerator.isCanonicalUUID(""))
        // Each position takes only what it should: a dash where a digit belongs, or the reverse,
        // or a non-hex letter, or a multi-byte character that makes the byte count right.
        let bytes = Array(valid.utf8)
        for index in bytes.indices {
            for replacement in ["-", "0", "g", "G", " ", "/", ":", "@", "`"] {
                var changed = bytes
                changed.replaceSubrange(index...index, with: Array(replacement.utf8))
                let text = String(decoding: changed, as: UTF8.self)
                let shouldPass = [8, 13, 18, 23].contains(index) ? replacement == "-" : replacement == "0"
                #expect(APNsIDGenerator.isCanonicalUUID(text) == shouldPass, "\(text)")
            }
        }
        #expect(!APNsIDGenerator.isCanonicalUUID("123e4567-e89b-12d3-a456-42661417400é"))  // 37 bytes
        #expect(!APNsIDGenerator.isCanonicalUUID("123e4567-e89b-12d3-a456-4266141740é"))  // 36 bytes, not hex
    }
}
