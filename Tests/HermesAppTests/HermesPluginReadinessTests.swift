import Foundation
import HermesApp
import Testing

@Suite struct HermesPluginReadinessTests {
    private func classify(_ status: Int, _ body: String) -> HermesPluginReadiness {
        HermesPluginReadiness(hubAnswer: .response(status: status, body: Data(body.utf8)))
    }

    @Test func anEnabledHermesPushRowIsReady() {
        #expect(classify(200, #"{"plugins":[{"name":"hermes-push","version":"1.2","runtime_status":"enabled"}]}"#) == .ready)
    }

    @Test func extraFieldsAnywhereAreTolerated() {
        let body = #"""
        {"generated_at":"2026-11-30","plugins":[
          {"name":"memory","runtime_status":"enabled","config":{"x":[1,2,{"y":null}]}},
          42, "junk", {"version":"9"},
          {"name":"hermes-push","version":"1.0","runtime_status":"enabled","source":{"git":"…"},"tags":["push"]}
        ],"hub":{"url":"https://…"}}
        """#
        #expect(classify(200, body) == .ready)
    }

    @Test(arguments: [
        #"{"plugins":[]}"#,
        #"{"plugins":[{"name":"other","runtime_status":"enabled"}]}"#,
        #"{"plugins":[{"name":"hermes-push","runtime_status":"disabled"}]}"#,
        #"{"plugins":[{"name":"hermes-push","runtime_status":"error"}]}"#,
        #"{"plugins":[{"name":"hermes-push","runtime_status":"Enabled"}]}"#,
        #"{"plugins":[{"name":"hermes-push"}]}"#,
        #"{"plugins":[{"name":"hermes-push","runtime_status":true}]}"#,
        #"{"plugins":[{"name":"Hermes-Push","runtime_status":"enabled"}]}"#,
    ])
    func anAnswerWithoutAnEnabledRowIsNotReady(body: String) {
        #expect(classify(200, body) == .notReady)
    }

    @Test(arguments: [404, 401, 403, 500, 502, 503, 301, 302])
    func anErrorStatusIsUnknown(status: Int) {
        // Even with a body that would say "ready": the status wins.
        #expect(classify(status, #"{"plugins":[{"name":"hermes-push","runtime_status":"enabled"}]}"#) == .unknown)
    }

    @Test(arguments: ["", "not json", "[]", #"{"plugins":{}}"#, #"{"plugins":"hermes-push"}"#, #"{"other":[]}"#,
                      #"{"plugins":[{"name":"hermes-push","runtime_status":"enabled"}]"#, "null"])
    func anUnparsableBodyIsUnknown(body: String) {
        #expect(classify(200, body) == .unknown)
    }

    @Test func aTransportErrorIsUnknown() {
        #expect(HermesPluginReadiness(hubAnswer: .transportError("connection refused")) == .unknown)
    }

    @Test func anyEnabledRowWinsOverAnotherRowOfTheSameName() {
        let body = #"{"plugins":[{"name":"hermes-push","runtime_status":"disabled"},{"name":"hermes-push","runtime_status":"enabled"}]}"#
        #expect(classify(200, body) == .ready)
    }
}
