import Foundation
import HermesContract

/// The app's push registration (contract §4): ask permission only when the plugin is
/// ready, register the APNs token with the agent, register again when the token changes,
/// unregister when the user turns notifications off.
///
/// ```swift
/// let lifecycle = HermesRegistrationLifecycle(api: api, permission: osPermission,
///                                             environment: .sandbox, appVersion: "1.4.0")
/// await lifecycle.enable(readiness: readiness)          // prompts only if .ready
/// // application(_:didRegisterForRemoteNotificationsWithDeviceToken:)
/// try await lifecycle.deviceTokenDidChange(deviceToken)
/// ```
public actor HermesRegistrationLifecycle {
    private let api: any HermesAgentAPI
    private let permission: any HermesNotificationPermission
    private let environment: HermesAPNsEnvironment
    private let appVersion: String
    /// Whether the user wants notifications (turned them on, and the OS allowed them).
    public private(set) var isEnabled = false
    /// The token the agent last accepted, lowercase hex.
    public private(set) var registeredToken: String?

    /// - Parameters:
    ///   - environment: The APNs environment of this build's tokens (debug builds: sandbox).
    ///   - appVersion: Sent with every registration.
    public init(api: any HermesAgentAPI, permission: any HermesNotificationPermission,
                environment: HermesAPNsEnvironment, appVersion: String) {
        self.api = api
        self.permission = permission
        self.environment = environment
        self.appVersion = appVersion
    }

    /// Turns notifications on if, and only if, the plugin is ready: prompts for permission
    /// when the user was never asked, then asks the OS for a device token.
    ///
    /// - Returns: What happened; nothing is shown to the user unless `readiness` is ready.
    @discardableResult
    public func enable(readiness: HermesPluginReadiness) async -> HermesEnableOutcome {
        guard readiness == .ready else { return .pluginNotReady(readiness) }
        switch await permission.authorizationStatus() {
        case .denied:
            return .permissionDenied
        case .notDetermined:
            guard await permission.requestAuthorization() else { return .permissionDenied }
        case .authorized:
            break
        }
        isEnabled = true
        await permission.registerForRemoteNotifications()
        return .awaitingDeviceToken
    }

    /// The OS delivered a device token (at every launch, and whenever it changes).
    /// Registers it with the agent when it differs from the one registered.
    ///
    /// - Returns: Whether a registration was sent.
    /// - Throws: ``HermesAgentAPIError`` when the agent refused or was unreachable; the
    ///   token stays unregistered, so the next call tries again.
    @discardableResult
    public func deviceTokenDidChange(_ token: Data) async throws(HermesAgentAPIError) -> Bool {
        try await deviceTokenDidChange(hex: token.map { Self.hexDigit($0 >> 4) + Self.hexDigit($0 & 0x0f) }.joined())
    }

    /// ``deviceTokenDidChange(_:)`` for a token already in hex.
    @discardableResult
    public func deviceTokenDidChange(hex: String) async throws(HermesAgentAPIError) -> Bool {
        let token = hex.lowercased()
        guard isEnabled, token != registeredToken else { return false }
        try await api.registerDevice(HermesDeviceRegistration(deviceToken: token, environment: environment,
                                                              appVersion: appVersion))
        registeredToken = token
        return true
    }

    /// The user turned notifications off: the agent forgets the token.
    ///
    /// - Throws: ``HermesAgentAPIError`` when the agent could not be told; notifications
    ///   are off in the app regardless, and a later call retries the unregistration.
    public func disable() async throws(HermesAgentAPIError) {
        isEnabled = false
        guard let token = registeredToken else { return }
        try await api.unregisterDevice(deviceToken: token)
        registeredToken = nil
    }

    private static func hexDigit(_ nibble: UInt8) -> String {
        String(UnicodeScalar(nibble < 10 ? 48 + nibble : 87 + nibble))
    }
}

/// What ``HermesRegistrationLifecycle/enable(readiness:)`` did.
public enum HermesEnableOutcome: Sendable, Hashable {
    /// The plugin is not ready (or readiness is unknown): nothing was asked.
    case pluginNotReady(HermesPluginReadiness)
    /// The user refused, now or before.
    case permissionDenied
    /// Permission is granted and the OS was asked for a token.
    case awaitingDeviceToken
}
