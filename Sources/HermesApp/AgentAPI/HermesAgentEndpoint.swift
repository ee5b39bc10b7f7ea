/// The paths of the agent's push API, defined once (contract §4).
public enum HermesAgentEndpoint {
    /// `GET`: the plugin list the readiness check reads.
    public static let pluginHub = "/api/dashboard/plugins/hub"
    /// `POST {device_token, apns_env, app_version}`: register a device.
    public static let register = "/api/plugins/hermes-push/register"
    /// `POST {device_token}`: forget a device. The contract says only "unregister on
    /// opt-out"; this path is the plugin's register path with `unregister` in its place.
    public static let unregister = "/api/plugins/hermes-push/unregister"
    /// `POST`: ask the plugin to send a test notification.
    public static let test = "/api/plugins/hermes-push/test"
}
