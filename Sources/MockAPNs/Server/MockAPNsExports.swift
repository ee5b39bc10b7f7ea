import APNsCore

// The capture is part of the embedding API (`MockAPNsServer.capture`, `CaptureFilter`,
// `CaptureRecord`): a package that imports MockAPNs sees it without importing APNsCapture.
@_exported import APNsCapture

/// How the mock answered one push: APNsCore's ``APNsCore/PushOutcome``, named here too.
public typealias PushOutcome = APNsCore.PushOutcome

/// Production or sandbox: APNsCore's ``APNsCore/APNsEnvironment``, named here too, since
/// observers and requests carry it.
public typealias APNsEnvironment = APNsCore.APNsEnvironment
