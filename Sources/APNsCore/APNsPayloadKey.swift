/// Keys of a push payload's `aps` dictionary and their documented values, each spelled once
/// for every module that reads or checks payloads.
///
/// ```swift
/// APNsPayloadKey.known.contains("thread-id")   // true
/// ```
public enum APNsPayloadKey {
    public static let aps = "aps"
    public static let alert = "alert"
    public static let badge = "badge"
    public static let sound = "sound"
    public static let threadID = "thread-id"
    public static let category = "category"
    public static let contentAvailable = "content-available"
    public static let mutableContent = "mutable-content"
    public static let targetContentID = "target-content-id"
    public static let interruptionLevel = "interruption-level"
    public static let relevanceScore = "relevance-score"
    public static let filterCriteria = "filter-criteria"
    public static let staleDate = "stale-date"
    public static let contentState = "content-state"
    public static let timestamp = "timestamp"
    public static let event = "event"
    public static let dismissalDate = "dismissal-date"
    public static let attributesType = "attributes-type"
    public static let attributes = "attributes"
    public static let inputPushToken = "input-push-token"
    public static let inputPushChannel = "input-push-channel"
    public static let contentChanged = "content-changed"
    public static let urlArgs = "url-args"

    /// Every key Apple documents inside `aps`.
    public static let known: KnownStrings = [
        alert, badge, sound, threadID, category, contentAvailable, mutableContent, targetContentID,
        interruptionLevel, relevanceScore, filterCriteria, staleDate, contentState, timestamp, event,
        dismissalDate, attributesType, attributes, inputPushToken, inputPushChannel, contentChanged, urlArgs,
    ]

    /// Keys of an `alert` dictionary (Live Activity alerts may carry `sound`).
    public static let knownAlert: KnownStrings = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
        "subtitle-loc-args", "loc-key", "loc-args", "action-loc-key", "action", sound,
    ]

    /// `sound.critical`: 1 for a critical alert (0 or absent for an ordinary sound).
    public static let soundCritical = "critical"
    /// `sound.name`: the sound file, or `default`.
    public static let soundName = "name"
    /// `sound.volume`: from 0 (silent) to 1 (full volume).
    public static let soundVolume = "volume"

    /// Keys of a critical-alert `sound` dictionary.
    public static let knownSound: KnownStrings = [soundCritical, soundName, soundVolume]

    public static let interruptionLevels: KnownStrings = ["passive", "active", "time-sensitive", "critical"]
    public static let liveActivityEvents: KnownStrings = [startEvent, "update", "end"]
    /// The Live Activity event that starts one, with rules of its own.
    public static let startEvent = "start"
}
