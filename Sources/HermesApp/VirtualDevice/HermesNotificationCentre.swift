import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the phone shows now, as the mock's delivery model has it (`GET
/// /delivery/devices/{token}/notifications`, docs/delivery.md): only what APNs delivered,
/// after storage, coalescing and collapse, oldest first.
public struct HermesNotificationCentre: Sendable, Hashable {
    /// One notification on the screen.
    public struct Shown: Sendable, Hashable {
        /// The `apns-id` of the push that put it there.
        public var apnsID: String
        public var collapseID: String?
        /// The payload exactly as sent.
        public var payload: [UInt8]
    }

    /// Whether APNs can reach the phone now.
    public var isOnline: Bool
    public var notifications: [Shown]
    /// The badge the app's pushes set last, by topic.
    public var badges: [String: Int]

    /// Reads the control API's answer with Foundation only.
    ///
    /// - Throws: ``HermesVirtualDeviceError/unexpectedAnswer(_:)`` when the body is not that shape.
    static func parse(_ body: Data) throws(HermesVirtualDeviceError) -> HermesNotificationCentre {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let list = root["notifications"] as? [[String: Any]] else {
            throw .unexpectedAnswer("the body has no \"notifications\" array")
        }
        var shown: [Shown] = []
        for entry in list {
            guard let apnsID = entry["apns_id"] as? String, let encoded = entry["payload_base64"] as? String,
                  let payload = Data(base64Encoded: encoded) else {
                throw .unexpectedAnswer("a notification lacks apns_id or payload_base64")
            }
            shown.append(Shown(apnsID: apnsID, collapseID: entry["collapse_id"] as? String, payload: Array(payload)))
        }
        let badges = (root["badges"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
        return HermesNotificationCentre(isOnline: root["connectivity"] as? String == "online", notifications: shown, badges: badges)
    }
}

extension HermesVirtualDevice {
    /// What the phone shows now. Needs the mock's delivery model (`apns-mock --delivery`).
    ///
    /// - Throws: ``HermesVirtualDeviceError`` when the control API cannot be reached or
    ///   answers otherwise (409 when the delivery model is off).
    public func notificationCentre() async throws(HermesVirtualDeviceError) -> HermesNotificationCentre {
        let request = URLRequest(url: URLSessionExchange.url(controlURL, path: "/delivery/devices/\(deviceToken)/notifications"),
                                 timeoutInterval: 30)
        let answer: URLSessionExchange.Answer
        switch await URLSessionExchange.perform(request, session: session) {
        case .success(let success): answer = success
        case .failure(let failure): throw .unreachable(failure.description)
        }
        guard answer.status == 200 else {
            throw .unexpectedAnswer("status \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try HermesNotificationCentre.parse(answer.body)
    }

    /// Runs the notifications the phone shows now and has not yet handled through the
    /// app's handler, oldest first: what the user sees once APNs has delivered.
    ///
    /// - Returns: the newly handled notifications with what the app did.
    public func handleShownNotifications() async throws(HermesVirtualDeviceError) -> [HermesDelivery] {
        let centre = try await notificationCentre()
        var fresh: [HermesDelivery] = []
        for shown in centre.notifications where !handledShown.contains(shown.apnsID) {
            handledShown.insert(shown.apnsID)
            let outcome = await handler.receive(payload: shown.payload)
            fresh.append(HermesDelivery(sequence: 0, apnsID: shown.apnsID, collapseID: shown.collapseID, pushType: "alert",
                                        priority: nil, expiration: nil, topic: nil, payload: shown.payload, outcome: outcome))
        }
        return fresh
    }
}
