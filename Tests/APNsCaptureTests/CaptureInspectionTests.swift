import APNsCapture
import APNsCore
import StrictJSON
import Testing

/// What the dashboard reads of the capture beyond listings: one record by its sequence
/// number, the counts per outcome and reason, and a push's simulator file.
struct CaptureInspectionTests {
    typealias F = CaptureFixtures

    static func record(_ body: String, topic: String? = "com.example.app", outcome: PushOutcome) -> CaptureRecord {
        var record = F.minimalRecord(body: Array(body.utf8), outcome: outcome)
        record.topic = topic
        return record
    }

    @Test func aRecordIsFoundByItsSequenceWhileTheRingHoldsIt() {
        let store = CaptureStore(capacity: 3)
        for index in 1...5 { store.record(Self.record(#"{"n":\#(index)}"#, outcome: .accepted(apnsID: "id-\(index)", uniqueID: nil))) }
        #expect(store.record(sequence: 5)?.outcome.apnsID == "id-5")
        #expect(store.record(sequence: 3)?.sequence == 3)
        #expect(store.record(sequence: 2) == nil, "dropped from the ring")
        #expect(store.record(sequence: 6) == nil, "not recorded yet")
        store.clear()
        #expect(store.record(sequence: 5) == nil, "cleared")
    }

    /// Counted from the ring's keys: status and injection travel with each entry, so a fault
    /// rule's own status and a reset stream (status 0, no reason) are counted as answered.
    @Test func outcomesAreCountedPerReasonAndStatus() {
        let store = CaptureStore()
        let rejections: [PushOutcome] = [
            F.rejected(.badDeviceToken, status: 400, apnsID: "b1"), F.rejected(.badDeviceToken, status: 400, apnsID: "b2"),
            F.rejected(.badDeviceToken, status: 400, apnsID: "b3"),
            PushOutcome(status: 503, reason: .internalServerError, apnsID: "i1", uniqueID: nil, timestamp: nil,
                        connectionAction: .none, isInjected: true),
            PushOutcome(status: 0, reason: nil, apnsID: "r1", uniqueID: nil, timestamp: nil, connectionAction: .none, isInjected: true),
            F.rejected(.unregistered, status: 410, apnsID: "u1", timestamp: 1),
        ]
        store.record(Self.record("{}", outcome: .accepted(apnsID: "a1", uniqueID: nil)))
        store.record(Self.record("{}", topic: "com.example.other", outcome: .accepted(apnsID: "a2", uniqueID: nil)))
        for outcome in rejections { store.record(Self.record("{}", outcome: outcome)) }
        let counts = store.outcomeCounts()
        #expect(counts.total == 8 && counts.accepted == 2 && counts.rejected == 6 && counts.injected == 2)
        #expect(counts.reasons == [
            .init(reason: "BadDeviceToken", status: 400, count: 3), .init(reason: nil, status: 0, count: 1),
            .init(reason: "Unregistered", status: 410, count: 1), .init(reason: "InternalServerError", status: 503, count: 1),
        ])
        let other = store.outcomeCounts(matching: CaptureFilter(topic: "com.example.other"))
        #expect(other.total == 1 && other.accepted == 1 && other.reasons.isEmpty)
    }

    /// The bundle ID is the topic without its push-type suffix, for every suffixed type.
    @Test func theSimulatorTargetIsTheTopicsBundleID() {
        for type in APNsPushType.allCases where !type.topicSuffix.isEmpty {
            #expect(SimulatorPushFile.bundleID(ofTopic: "com.example.app" + type.topicSuffix) == "com.example.app", "\(type)")
        }
        #expect(SimulatorPushFile.bundleID(ofTopic: "com.example.app") == "com.example.app")
        #expect(SimulatorPushFile.bundleID(ofTopic: "com.example.voip-app") == "com.example.voip-app")
        #expect(SimulatorPushFile.bundleID(ofTopic: "com.example.app.voip-ptt") == "com.example.app", "the longest suffix")
    }

    @Test func theSimulatorFileIsThePayloadWithItsTarget() throws {
        let record = Self.record(#"{"aps":{"alert":"hi"},"Simulator Target Bundle":"wrong","n":1}"#, topic: "com.example.app.complication",
                                 outcome: .accepted(apnsID: "8A2F1E3C-0000-4000-8000-00000000ABCD", uniqueID: nil))
        let file = try SimulatorPushFile(record: record)
        #expect(file.fileName == "8A2F1E3C-0000-4000-8000-00000000ABCD.apns" && file.bundleID == "com.example.app")
        #expect(try JSONParser.parse(file.contents) == .object([
            "aps": .object(["alert": "hi"]), "n": 1, "Simulator Target Bundle": "com.example.app",
        ]))
        #expect(file.contents.last == UInt8(ascii: "\n"))

        let odd = try SimulatorPushFile(record: Self.record("{}", outcome: .accepted(apnsID: "../../etc/passwd", uniqueID: nil)))
        #expect(odd.fileName == "push-0.apns", "an apns-id that is not UUID-shaped never becomes a path")
    }

    @Test func aPushWithNoTopicOrNoObjectHasNoSimulatorFile() {
        for (body, topic, kind) in [("[1]", "com.example.app", SimulatorPushFileError.Kind.payloadNotAnObject),
                                    ("not json", "com.example.app", .payloadNotAnObject), ("{}", nil, .noTopic)] {
            let error = #expect(throws: SimulatorPushFileError.self, "\(body)") {
                try SimulatorPushFile(record: Self.record(body, topic: topic, outcome: .accepted(apnsID: "a", uniqueID: nil)))
            }
            #expect(error?.kind == kind, "\(body): \(String(describing: error))")
        }
    }
}
