/// JSON keys of the push payload, each defined once.
enum APSKey {
    static let aps = "aps"

    static let alert = "alert"
    static let badge = "badge"
    static let sound = "sound"
    static let threadID = "thread-id"
    static let category = "category"
    static let contentAvailable = "content-available"
    static let mutableContent = "mutable-content"
    static let targetContentID = "target-content-id"
    static let interruptionLevel = "interruption-level"
    static let relevanceScore = "relevance-score"
    static let filterCriteria = "filter-criteria"
    static let staleDate = "stale-date"
    static let contentState = "content-state"
    static let timestamp = "timestamp"
    static let event = "event"
    static let dismissalDate = "dismissal-date"
    static let attributesType = "attributes-type"
    static let attributes = "attributes"
    static let inputPushToken = "input-push-token"
    static let inputPushChannel = "input-push-channel"
    static let contentChanged = "content-changed"
    static let urlArgs = "url-args"

    /// Every key Apple documents inside `aps`.
    static let known: KnownStrings = [
        alert, badge, sound, threadID, category, contentAvailable, mutableContent, targetContentID,
        interruptionLevel, relevanceScore, filterCriteria, staleDate, contentState, timestamp, event,
        dismissalDate, attributesType, attributes, inputPushToken, inputPushChannel, contentChanged, urlArgs,
    ]

    /// Keys of an `alert` dictionary. Live Activity alerts may also carry `sound`.
    static let knownAlert: KnownStrings = [
        "title", "subtitle", "body", "launch-image", "title-loc-key", "title-loc-args", "subtitle-loc-key",
        "subtitle-loc-args", "loc-key", "loc-args", "action-loc-key", "action", sound,
    ]

    /// Values of `interruption-level`.
    static let interruptionLevels: KnownStrings = ["passive", "active", "time-sensitive", "critical"]
    /// Values of a Live Activity `event`.
    static let liveActivityEvents: Set<String> = ["start", "update", "end"]
    static let startEvent = "start"
}
