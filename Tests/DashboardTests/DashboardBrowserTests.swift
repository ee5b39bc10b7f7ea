import Foundation
import PushTestSupport
import Testing

/// The dashboard in a real browser: headless chromium driven by Selenium
/// (`Browser/dashboard_browser.py`) against the built `apns-mock`, with pushes from the
/// python `h2` client. Each test runs one scenario and checks what the page showed. Waits
/// are bounded (30 s for anything to show); no latency is asserted.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DashboardBrowserTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("Tests/DashboardTests/Browser/dashboard_browser.py").path

    /// The built `apns-mock`, in the build folder that holds the test bundle.
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent(), Bundle.main.bundleURL].map { $0.appendingPathComponent("apns-mock").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    struct ScenarioFailure: Error, CustomStringConvertible { var description: String }

    /// Runs `scenario` and decodes the JSON it printed last; `out` receives downloads and screenshots.
    static func run<Seen: Decodable & Sendable>(
        _ scenario: String, as type: Seen.Type, token: String? = nil, out: String? = nil
    ) async throws -> Seen {
        let directory = try out ?? TestCertificateIssuer.temporaryDirectory()
        var arguments = [script, scenario, "--mock", executable, "--certs", root.appendingPathComponent("certs").path, "--out", directory]
        if let token { arguments += ["--token", token] }
        let result = try await SpawnedProcess.runDetached("python3", arguments, timeout: 120)
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw ScenarioFailure(description: "\(scenario) failed (status \(result.status)):\n\(result.stdout)\n\(result.stderr.suffix(3000))")
        }
        return try JSONDecoder().decode(Seen.self, from: Data(line.utf8))
    }

    struct Live: Decodable {
        var status: Int
        var title: String?, subtitle: String?, body: String?, badge: String?, app: String?
        var tags: [String]
        var outcome: String?
        var time_sensitive: Bool
        var reloaded: Bool
        var delivery_off: String
    }

    /// A push sent while the page is open shows as a banner, without a reload.
    @Test func aPushAppearsAsABannerWithoutReload() async throws {
        let seen = try await Self.run("live", as: Live.self)
        #expect(seen.status == 200)
        #expect(seen.title == "Dinner is ready" && seen.subtitle == "From the kitchen" && seen.body == "Come down while it is hot")
        #expect(seen.badge == "3" && seen.app == "com.example.app" && seen.time_sensitive)
        #expect(seen.tags == ["sound bell.caf", "time-sensitive", "thread family"])
        #expect(seen.outcome?.hasPrefix("✓ accepted") == true)
        #expect(!seen.reloaded)
        // Without --delivery, the connectivity panel says how to turn the model on.
        #expect(seen.delivery_off.contains("--delivery"), "\(seen.delivery_off)")
    }

    struct Filtered: Decodable {
        var rejected_reason: String?, rejected_status: String?, rejected_explanation: String?
        var all: [String]
        var outcome_rejected: [String], push_type_background: [String], apns_id_search: [String], after_unmatched_push: [String]
        var ids: [String: String]
    }

    /// A rejection shows its status, reason and the mock's sentence; filters and the apns-id
    /// search narrow the list, and a push that does not match them stays out.
    @Test func aRejectionShowsItsReasonAndFiltersNarrowTheList() async throws {
        let seen = try await Self.run("rejected_and_filters", as: Filtered.self)
        #expect(seen.rejected_reason == "TopicDisallowed" && seen.rejected_status == "✗ 400")
        #expect(seen.rejected_explanation?.contains("com.example.other is not served") == true, "\(seen.rejected_explanation ?? "")")
        #expect(seen.all.count == 3)
        #expect(seen.outcome_rejected == [seen.ids["rejected"]])
        #expect(seen.push_type_background == [seen.ids["background"]])
        #expect(seen.apns_id_search == [seen.ids["accepted"]])
        #expect(seen.after_unmatched_push == [seen.ids["accepted"], seen.ids["accepted"]])
    }

    struct Injection: Decodable {
        var injected: String?
        var scripts: [String?]
        var images: Int, links: Int
        var event_attributes: [String]
        var titles: [String?], expected_titles: [String]
        var controls_marked: Int
        var details_text: String
        var csp_violations: [String]
    }

    /// Payloads, headers and topics carrying `<script>`, `<img onerror>`, `javascript:` and
    /// bidirectional controls are drawn as text, in banners and details: no script ran, no
    /// element was added, and the controls are visible marks.
    @Test func markupInPushesIsDrawnAsText() async throws {
        let seen = try await Self.run("xss", as: Injection.self)
        #expect(seen.injected == nil, "an injected script ran: \(seen.injected ?? "")")
        #expect(seen.scripts == ["/dashboard/dashboard.js"])
        #expect(seen.images == 0 && seen.event_attributes.isEmpty)
        #expect(seen.links == 0)
        #expect(seen.titles == seen.expected_titles.map { Optional($0) })
        #expect(seen.controls_marked == 4)
        #expect(seen.details_text.contains("<img src=x onerror=alert(1)>"))
        #expect(seen.csp_violations.isEmpty, "\(seen.csp_violations)")
    }

    struct Export: Decodable {
        var findings: String
        var profiles: [String]
        var asked_privacy: Bool
        var file: [String: JSONAny]?
        var command: String
        var files: [String]
        var apns_id: String
    }

    /// Any JSON value, compared by its text.
    struct JSONAny: Decodable, Equatable {
        var text: String
        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let string = try? container.decode(String.self) { text = "\"\(string)\"" }
            else if let number = try? container.decode(Double.self) { text = "\(number)" }
            else if let object = try? container.decode([String: JSONAny].self) {
                text = "{" + object.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.text)" }.joined(separator: ",") + "}"
            } else { text = "?" }
        }
    }

    /// The download is an `.apns` file: the payload plus `Simulator Target Bundle`, with the
    /// `xcrun simctl push` line beside it. The details show push-inspect's findings for the
    /// profile picked.
    @Test func aPushExportsAsAnApnsFile() async throws {
        let seen = try await Self.run("export", as: Export.self)
        let file = try #require(seen.file, "no file downloaded: \(seen.files)")
        #expect(file["Simulator Target Bundle"]?.text == "\"com.example.app\"")
        #expect(file["deep_link"]?.text == "\"example://x\"")
        #expect(file["aps"]?.text == #"{alert:{body:"to the simulator",title:"Export me"},badge:1.0}"#)
        // The file is named as the mock names it (`SimulatorPushFile.fileName`): by its apns-id.
        #expect(seen.command == "xcrun simctl push booted com.example.app \(seen.apns_id).apns")
        #expect(seen.findings == "no findings" || seen.findings.hasPrefix("apple."), "\(seen.findings)")
        #expect(Set(["apple", "privacy", "hermes"]).isSubset(of: seen.profiles) && seen.asked_privacy, "\(seen.profiles)")
    }

    struct Broadcast: Decodable {
        var status: Int
        var channel: String
        var text: String
    }

    /// A broadcast is drawn as the Live Activity it carries, with the channel it went to.
    @Test func aBroadcastNamesItsChannel() async throws {
        let seen = try await Self.run("broadcast", as: Broadcast.self)
        #expect(seen.status == 200)
        #expect(seen.text.contains("broadcast to channel \(seen.channel)") && seen.text.contains("2-1"), "\(seen.text)")
    }

    struct Screenshot: Decodable {
        var path: String
        var pushes: Int
        var reasons: [String]
        var rejected_reason: String?
        var activity: String?
    }

    /// A page holding an alert, a background push, a Live Activity and a rejection, as
    /// docs/dashboard.png shows it (`DASHBOARD_SCREENSHOT=docs` writes it there).
    @Test func aScreenshotOfEveryKind() async throws {
        let out = ProcessInfo.processInfo.environment["DASHBOARD_SCREENSHOT"].map { Self.root.appendingPathComponent($0).path }
        let seen = try await Self.run("screenshot", as: Screenshot.self, out: out)
        #expect(seen.pushes == 4 && seen.rejected_reason == "TopicDisallowed")
        #expect(seen.reasons == ["TopicDisallowed 1"])
        #expect(seen.activity == "driverSamminutes_away4stageon the way")
        let png = try Data(contentsOf: URL(fileURLWithPath: seen.path))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000)
    }

    struct Thinning: Decodable {
        var drawn_first: [Int]
        var more: String
        var drawn_after_older: [Int]
        var more_shown_after_older: Bool
    }

    /// Behind by 60, the page draws the newest 50 (one answer's worth), says how many more
    /// there are, and pages the older ones from the capture on request.
    @Test func aFollowerBehindDrawsTheNewestAndPagesTheRest() async throws {
        let seen = try await Self.run("thinning", as: Thinning.self)
        #expect(seen.drawn_first == Array((11...60).reversed()))
        #expect(seen.more.hasPrefix("10 more pushes arrived"), "\(seen.more)")
        #expect(seen.drawn_after_older == Array((1...60).reversed()) && !seen.more_shown_after_older)
    }

    struct Reconnect: Decodable {
        var disconnected_text: String
        var after_title: String?
        var reloaded: Bool
    }

    /// The page says when the mock is gone, and follows it again once it is back.
    @Test func thePageReconnectsAfterARestart() async throws {
        let seen = try await Self.run("reconnect", as: Reconnect.self)
        #expect(seen.disconnected_text.hasPrefix("disconnected"))
        #expect(seen.after_title == "after the restart" && !seen.reloaded)
    }

    struct Login: Decodable {
        var state_before: String
        var title: String?
        var stored: String?
        var apps: String
    }

    /// Behind `--control-token`, the page asks for the token, keeps it for the tab and follows.
    @Test func thePageAsksForTheAccessToken() async throws {
        let token = "dashboard-test-token-0123456789"
        let seen = try await Self.run("login", as: Login.self, token: token)
        #expect(seen.state_before == "signed-out")
        #expect(seen.title == "behind a token" && seen.stored == token)
        #expect(seen.apps.contains("com.example.app"))
    }

    struct MockState: Decodable {
        struct Device: Decodable { var token: String; var state: String; var bundle_id: String }
        var status_after_unregister: Int
        var devices: [Device]
        var faults_after_add: [String]
        var faulted_status: Int
        var injected: String?
        var faults_after_remove: [String]
        var held_after_clear: Int
    }

    /// From the page: a device marked unregistered (then answered 410), a fault rule added
    /// (its answer marked injected) and removed, the capture cleared after a confirmation.
    @Test func thePageChangesTheMockState() async throws {
        let seen = try await Self.run("mock_state", as: MockState.self)
        #expect(seen.devices.map(\.state) == ["unregistered"] && seen.devices.first?.bundle_id == "com.example.app")
        #expect(seen.status_after_unregister == 410)
        #expect(seen.faults_after_add == ["page-rule"] && seen.faulted_status == 503 && seen.injected == "injected")
        #expect(seen.faults_after_remove.isEmpty)
        #expect(seen.held_after_clear == 0)
    }

    struct Delivery: Decodable {
        struct Device: Decodable { var device_token: String; var connectivity: String }
        var statuses: [Int]
        var first_stored: String?, first_after_second: String?, second_before_online: String?
        var row_before: String?, row_after: String?
        var second_after_online: String?, first_after_online: String?
        var first_history: [String], second_history: [String]
        var history_times: [String]
        var api_devices: [Device]
        var api_second: String
        var reloaded: Bool
    }

    /// With `--delivery`: two pushes to an offline device show as stored, the earlier then
    /// as coalesced; the page's toggle brings the device online (as the control API then
    /// says) and the later push turns delivered, in the list and in its open details, without
    /// a reload; the earlier one's details list its history with times.
    @Test func deliveryStatesFollowThePagesConnectivityToggle() async throws {
        let seen = try await Self.run("delivery", as: Delivery.self)
        #expect(seen.statuses == [200, 200])
        #expect(seen.first_stored == "stored (offline)")
        #expect(seen.first_after_second == "discarded (coalesced)" && seen.second_before_online == "stored (offline)")
        #expect(seen.row_before == "offline" && seen.row_after == "online")
        #expect(seen.second_after_online == "delivered" && seen.first_after_online == "discarded (coalesced)")
        #expect(seen.first_history == ["stored (offline)", "discarded (coalesced) by"], "\(seen.first_history)")
        #expect(seen.second_history == ["stored (offline)", "delivered"], "\(seen.second_history)")
        #expect(seen.history_times.count == 2 && seen.history_times.allSatisfy { $0.wholeMatch(of: /\d\d:\d\d:\d\d\.\d{3}/) != nil },
                "\(seen.history_times)")
        let device = String(repeating: "ab", count: 32)
        #expect(seen.api_devices.first { $0.device_token == device }?.connectivity == "online", "\(seen.api_devices.map(\.connectivity))")
        #expect(seen.api_second == "delivered")
        #expect(!seen.reloaded)
    }

    struct RenderDelivery: Decodable {
        var error: String?
        var labels: [String]?
        var badge_text: String?, badge_class: String?, badge_state: String?, plain_badge: String?
        var history: [String]?
        var row_cells: [String]?, row_token: String?, row_button: String?
        var online_cells: [String]?, online_button: String?
        var images: Int?
        var injected: String?
        var csp_violations: [String]?
    }

    /// render.js's delivery functions in the page: the labels people read, and markup in a
    /// record's or a device's fields drawn as text (no element, no script, no CSP report).
    @Test func deliveryRenderingLabelsStatesAndEscapesEveryField() async throws {
        let seen = try await Self.run("render_delivery", as: RenderDelivery.self)
        #expect(seen.error == nil, "\(seen.error ?? "")")
        let bad = #"<img src=x onerror="window.injected = 1">"#
        #expect(seen.labels == ["discarded (coalesced)", "replaced on screen", "rejected (expired token)", "delivered"])
        #expect(seen.badge_text == "\(bad) (\(bad))" && seen.badge_state == bad)
        #expect(seen.badge_class == "tag delivery state-imgsrcxonerrorwindowinjected", "\(seen.badge_class ?? "")")
        #expect(seen.plain_badge == "stored (power)")
        #expect(seen.history?.count == 2 && seen.history?.last?.hasSuffix("discarded (\(bad)) by \(bad)") == true, "\(seen.history ?? [])")
        #expect(seen.history?.last?.hasPrefix("not a time") == true)
        #expect(seen.row_cells == [bad, "offline", "2", "—", "Go online"] && seen.row_token == bad && seen.row_button == "online")
        #expect(seen.online_cells == ["abab", "online", "—", "—", "Go offline"] && seen.online_button == "offline")
        #expect(seen.images == 0 && seen.injected == nil)
        #expect(seen.csp_violations?.isEmpty == true, "\(seen.csp_violations ?? [])")
    }
}
