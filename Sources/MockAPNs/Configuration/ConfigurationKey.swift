/// Top-level field names of the configuration file, defined once.
enum ConfigurationKey {
    static let server = ServerSettingsKey.section
    static let apps = "apps"
    static let keys = "keys"
    static let devices = "devices"
    static let acceptUnknownDevices = "acceptUnknownDevices"
    static let faults = "faults"
    static let validation = ValidationSettingsKey.section
    static let all = [server, apps, keys, devices, acceptUnknownDevices, faults, validation]
}

/// Field names of the `validation` section: the choices where Apple is silent.
enum ValidationSettingsKey {
    static let section = "validation"
    static let acceptMissingPushType = "acceptMissingPushType"
    static let rejectImmediateBackgroundPushes = "rejectImmediateBackgroundPushes"
    static let rejectMalformedPayloads = "rejectMalformedPayloads"
    static let payloadNestingLimit = "payloadNestingLimit"
    static let goAwayReasons = "goAwayReasons"
    static let all = [
        acceptMissingPushType, rejectImmediateBackgroundPushes, rejectMalformedPayloads, payloadNestingLimit, goAwayReasons,
    ]
}

/// Field names of the `server` section.
enum ServerSettingsKey {
    static let section = "server"
    static let host = "host"
    static let productionPort = "productionPort"
    static let sandboxPort = "sandboxPort"
    static let controlPort = "controlPort"
    static let tls = "tls"
    static let certificate = "certificate"
    static let privateKey = "privateKey"
    static let clientCA = "clientCA"
    static let maxConcurrentStreams = "maxConcurrentStreams"
    static let dropStreamLimitAfterRejection = "dropStreamLimitAfterRejection"
    static let headerTableSize = "headerTableSize"
    static let initialWindowSize = "initialWindowSize"
    static let maxFrameSize = "maxFrameSize"
    static let maxHeaderListSize = "maxHeaderListSize"
    static let idleTimeoutSeconds = "idleTimeoutSeconds"
    static let requestReadTimeoutSeconds = "requestReadTimeoutSeconds"
    static let captureFile = "captureFile"
    static let captureRingSize = "captureRingSize"
    static let captureFsync = "captureFsync"
    static let all = [
        host, productionPort, sandboxPort, controlPort, tls, certificate, privateKey, clientCA, maxConcurrentStreams,
        dropStreamLimitAfterRejection, headerTableSize, initialWindowSize, maxFrameSize, maxHeaderListSize,
        idleTimeoutSeconds, requestReadTimeoutSeconds, captureFile, captureRingSize, captureFsync,
    ]
}

/// Field names of a key entry.
enum KeyEntryKey {
    static let keyID = "keyId"
    static let teamID = "teamId"
    static let path = "path"
    static let publicKey = "publicKey"
    static let environment = "environment"
    static let topics = "topics"
    static let all = [keyID, teamID, path, publicKey, environment, topics]
}

/// Field names and state values of a device entry.
enum DeviceEntryKey {
    static let token = "token"
    static let bundleID = "bundleId"
    static let environment = "environment"
    static let state = "state"
    static let unregisteredSince = "unregisteredSince"
    static let all = [token, bundleID, environment, state, unregisteredSince]

    static let active = "active"
    static let unregistered = "unregistered"
    static let expired = "expired"
    static let states = [active, unregistered, expired]
}
