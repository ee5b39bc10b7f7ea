/// Top-level field names of the configuration file, defined once. Every field name of the
/// file is snake_case (``JSONKeyConvention``); the control API's bodies share them.
enum ConfigurationKey {
    static let server = ServerSettingsKey.section
    static let apps = "apps"
    static let keys = "keys"
    static let devices = "devices"
    static let acceptUnknownDevices = "accept_unknown_devices"
    static let faults = "faults"
    static let validation = ValidationSettingsKey.section
    static let policyFile = "policy_file"
    static let delivery = DeliverySettingsKey.section
    static let simulatorForwarding = SimulatorForwardingKey.section
    static let all = [server, apps, keys, devices, acceptUnknownDevices, faults, validation, policyFile, delivery, simulatorForwarding]
}

/// Field names of the `validation` section: the choices where Apple is silent.
enum ValidationSettingsKey {
    static let section = "validation"
    static let acceptMissingPushType = "accept_missing_push_type"
    static let rejectImmediateBackgroundPushes = "reject_immediate_background_pushes"
    static let rejectMalformedPayloads = "reject_malformed_payloads"
    static let payloadNestingLimit = "payload_nesting_limit"
    static let goAwayReasons = "go_away_reasons"
    static let all = [
        acceptMissingPushType, rejectImmediateBackgroundPushes, rejectMalformedPayloads, payloadNestingLimit, goAwayReasons,
    ]
}

/// Field names of the `server` section.
enum ServerSettingsKey {
    static let section = "server"
    static let host = "host"
    static let productionPort = "production_port"
    static let sandboxPort = "sandbox_port"
    static let controlPort = "control_port"
    static let channelSandboxPort = "channel_sandbox_port"
    static let channelProductionPort = "channel_production_port"
    static let tls = "tls"
    static let certificate = "certificate"
    static let privateKey = "private_key"
    static let clientCA = "client_ca"
    static let maxConcurrentStreams = "max_concurrent_streams"
    static let dropStreamLimitAfterRejection = "drop_stream_limit_after_rejection"
    static let headerTableSize = "header_table_size"
    static let initialWindowSize = "initial_window_size"
    static let maxFrameSize = "max_frame_size"
    static let maxHeaderListSize = "max_header_list_size"
    static let idleTimeoutSeconds = "idle_timeout_seconds"
    static let requestReadTimeoutSeconds = "request_read_timeout_seconds"
    static let requestHeadersTimeoutSeconds = "request_headers_timeout_seconds"
    static let connectionPrefaceTimeoutSeconds = "connection_preface_timeout_seconds"
    static let maxConnections = "max_connections"
    static let connectionErrorBudget = "connection_error_budget"
    static let captureFile = "capture_file"
    static let captureRingSize = "capture_ring_size"
    static let captureFsync = "capture_fsync"
    static let explanationHeader = "explanation_header"
    static let controlAllowedHosts = "control_allowed_hosts"
    /// Names the access token in errors; the file has no such field (the token is a secret).
    static let controlToken = "control_token"
    static let all = [
        host, productionPort, sandboxPort, controlPort, channelSandboxPort, channelProductionPort, tls, certificate, privateKey, clientCA, maxConcurrentStreams,
        dropStreamLimitAfterRejection, headerTableSize, initialWindowSize, maxFrameSize, maxHeaderListSize,
        idleTimeoutSeconds, requestReadTimeoutSeconds, requestHeadersTimeoutSeconds, connectionPrefaceTimeoutSeconds,
        maxConnections, connectionErrorBudget, captureFile, captureRingSize, captureFsync,
        explanationHeader, controlAllowedHosts,
    ]
}

/// Field names of a key entry.
enum KeyEntryKey {
    static let keyID = "key_id"
    static let teamID = "team_id"
    static let path = "path"
    static let publicKey = "public_key"
    static let environment = "environment"
    static let topics = "topics"
    static let all = [keyID, teamID, path, publicKey, environment, topics]
}

/// Field names and state values of a device entry.
enum DeviceEntryKey {
    static let token = "token"
    static let bundleID = "bundle_id"
    static let environment = "environment"
    static let state = "state"
    static let unregisteredSince = "unregistered_since"
    static let all = [token, bundleID, environment, state, unregisteredSince]

    static let active = "active"
    static let unregistered = "unregistered"
    static let expired = "expired"
    static let states = [active, unregistered, expired]
}
