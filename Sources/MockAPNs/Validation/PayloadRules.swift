import APNsCore
import StrictJSON

/// The `aps` rules per push type. Apple documents no rejection reason for any of them, so
/// each breach is a lint warning on an accepted push: APNs takes such pushes and then
/// shows nothing, or delivers them late, and the developer wants to know.
enum PayloadRules {
    /// The push types whose payload must hold `aps` to do anything.
    private static let typesNeedingAPS: Set<APNsPushType> = [.alert, .background, .liveactivity]

    /// Appends a warning for each rule a payload breaks for `pushType`, given the payload
    /// outlined around its `aps` member.
    ///
    /// - Parameters:
    ///   - isBroadcast: Whether the payload is a broadcast's (`/4/broadcasts/apps/…`), which
    ///     is a Live Activity push with rules of its own (``LiveActivityRules``).
    ///   - parsedPayload: The whole payload, parsed; called only for the rare rule that needs
    ///     a value deeper than the outline reads (a critical-alert `sound`).
    static func lint(
        _ payload: JSONOutline, pushType: APNsPushType, isBroadcast: Bool = false,
        into warnings: inout [PushLintWarning], parsedPayload: () -> JSONValue?
    ) {
        guard let aps = payload.memberFields else {
            if let apsValue = payload.member {
                warnings.append(PushLintWarning(
                    code: PushLintCode.apsNotObject, message: "aps must be an object, found \(apsValue.typeName)", path: APNsPayloadKey.aps))
            } else if typesNeedingAPS.contains(pushType) {
                warnings.append(PushLintWarning(
                    code: PushLintCode.apsMissing, message: "\(pushType.withArticle) push needs an aps dictionary; the device will do nothing",
                    path: APNsPayloadKey.aps))
            }
            return
        }
        lintKeys(aps, pushType: pushType, into: &warnings, parsedPayload: parsedPayload)
        switch pushType {
        case .alert: lintAlertPush(aps, into: &warnings)
        case .background: lintBackgroundPush(aps, into: &warnings)
        case .liveactivity: LiveActivityRules.lint(aps, isBroadcast: isBroadcast, into: &warnings)
        default: break
        }
    }

    // MARK: Every key

    private static func lintKeys(
        _ aps: JSONShallowObject, pushType: APNsPushType, into warnings: inout [PushLintWarning], parsedPayload: () -> JSONValue?
    ) {
        let firstNew = warnings.count
        for member in aps.members {
            let key = member.key
            let value = member.value
            // Built only when a warning needs it: this loop runs for every push.
            var path: String { "aps.\(key)" }
            guard APNsPayloadKey.known.contains(key) else {
                warnings.append(PushLintWarning(
                    code: PushLintCode.apsUnknownKey, message: "APNs ignores \(key) inside aps; put app data beside aps",
                    path: path))
                continue
            }
            switch key {
            case APNsPayloadKey.badge:
                if case .integer(let count) = value {
                    if count < 0 { fieldValue(path, "badge must be 0 or more", into: &warnings) }
                } else {
                    warnings.append(PushLintWarning(
                        code: PushLintCode.apsBadgeType, message: "badge must be a whole number, found \(value.typeName)",
                        path: path))
                }
            case APNsPayloadKey.alert:
                switch value {
                case .string: break
                case .object(let alertKeys):
                    // Sorted only when there is something to report, for a stable order.
                    for alertKey in alertKeys.filter({ !APNsPayloadKey.knownAlert.contains($0) }).sorted() {
                        warnings.append(PushLintWarning(
                            code: PushLintCode.apsUnknownKey, message: "APNs ignores \(alertKey) inside alert",
                            path: "\(path).\(alertKey)"))
                    }
                default: fieldType(path, "a string or an object", value, into: &warnings)
                }
            case APNsPayloadKey.sound:
                switch value {
                case .string: break
                case .object(let soundKeys):
                    lintSoundDictionary(soundKeys, path: path, parsedPayload: parsedPayload, into: &warnings)
                default: fieldType(path, "a string or an object", value, into: &warnings)
                }
            case APNsPayloadKey.threadID, APNsPayloadKey.category, APNsPayloadKey.targetContentID, APNsPayloadKey.filterCriteria, APNsPayloadKey.attributesType,
                 APNsPayloadKey.inputPushChannel:
                if case .string = value {} else { fieldType(path, "a string", value, into: &warnings) }
            case APNsPayloadKey.interruptionLevel:
                if case .string(let level) = value {
                    if !APNsPayloadKey.interruptionLevels.contains(level) {
                        fieldValue(path, "interruption-level must be passive, active, time-sensitive or critical", into: &warnings)
                    }
                } else {
                    fieldType(path, "a string", value, into: &warnings)
                }
            case APNsPayloadKey.contentAvailable, APNsPayloadKey.mutableContent, APNsPayloadKey.inputPushToken:
                if case .integer(let flag) = value {
                    if flag != 1 { fieldValue(path, "\(key) has meaning only as 1; leave it out otherwise", into: &warnings) }
                } else {
                    fieldType(path, "the number 1", value, into: &warnings)
                }
            case APNsPayloadKey.relevanceScore:
                let score: Double? = switch value {
                case .integer(let number): Double(number)
                case .double(let number): number
                default: nil
                }
                if let score {
                    // Live Activities rank by any number; notifications use 0...1.
                    if pushType != .liveactivity, !(0...1).contains(score) {
                        fieldValue(path, "relevance-score must be between 0 and 1", into: &warnings)
                    }
                } else {
                    fieldType(path, "a number", value, into: &warnings)
                }
            case APNsPayloadKey.staleDate, APNsPayloadKey.timestamp, APNsPayloadKey.dismissalDate:
                if case .integer(let seconds) = value {
                    if seconds < 0 { fieldValue(path, "\(key) must be UNIX seconds", into: &warnings) }
                } else {
                    fieldType(path, "whole UNIX seconds", value, into: &warnings)
                }
            case APNsPayloadKey.contentState, APNsPayloadKey.attributes:
                if case .object = value {} else { fieldType(path, "an object", value, into: &warnings) }
            case APNsPayloadKey.event:
                if case .string(let event) = value {
                    if !APNsPayloadKey.liveActivityEvents.contains(event) {
                        fieldValue(path, "event must be start, update or end", into: &warnings)
                    }
                } else {
                    fieldType(path, "a string", value, into: &warnings)
                }
            default:
                break
            }
        }
        // Dictionary order varies between runs; sorted by path, the warnings do not.
        if warnings.count - firstNew > 1 {
            warnings[firstNew...].sort { ($0.path ?? "") < ($1.path ?? "") }
        }
    }

    /// A critical-alert `sound` dictionary: `critical` (0 or 1), `name` (a string) and
    /// `volume` (0 to 1); any other key is ignored by APNs. The outline holds only the
    /// dictionary's keys, so its values are read from the whole payload, parsed here once:
    /// such sounds are rare.
    private static func lintSoundDictionary(
        _ keys: [String], path: String, parsedPayload: () -> JSONValue?, into warnings: inout [PushLintWarning]
    ) {
        for key in keys.filter({ !APNsPayloadKey.knownSound.contains($0) }).sorted() {
            warnings.append(PushLintWarning(
                code: PushLintCode.apsUnknownKey,
                message: "APNs ignores \(key) inside sound; a critical-alert sound has critical, name and volume",
                path: "\(path).\(key)"))
        }
        guard keys.contains(where: { APNsPayloadKey.knownSound.contains($0) }),
              case .object(let payload)? = parsedPayload(),
              case .object(let aps)? = payload[APNsPayloadKey.aps],
              case .object(let sound)? = aps[APNsPayloadKey.sound] else { return }
        if let critical = sound[APNsPayloadKey.soundCritical] {
            let criticalPath = "\(path).\(APNsPayloadKey.soundCritical)"
            switch critical {
            case .integer(0), .integer(1): break
            case .integer: fieldValue(criticalPath, "sound.critical must be 1 (a critical alert) or 0", into: &warnings)
            default: fieldType(criticalPath, "the number 0 or 1", JSONShallowValue(critical), into: &warnings)
            }
        }
        if let name = sound[APNsPayloadKey.soundName], name.stringValue == nil {
            fieldType("\(path).\(APNsPayloadKey.soundName)", "a string", JSONShallowValue(name), into: &warnings)
        }
        if let volume = sound[APNsPayloadKey.soundVolume] {
            let volumePath = "\(path).\(APNsPayloadKey.soundVolume)"
            let level: Double? = switch volume {
            case .integer(let number): Double(number)
            case .double(let number): number
            default: nil
            }
            if let level {
                if !(0...1).contains(level) { fieldValue(volumePath, "sound.volume must be between 0 and 1", into: &warnings) }
            } else {
                fieldType(volumePath, "a number from 0 to 1", JSONShallowValue(volume), into: &warnings)
            }
        }
    }

    // MARK: Per push type

    private static func lintAlertPush(_ aps: JSONShallowObject, into warnings: inout [PushLintWarning]) {
        if aps[APNsPayloadKey.alert] == nil, aps[APNsPayloadKey.sound] == nil, aps[APNsPayloadKey.badge] == nil {
            warnings.append(PushLintWarning(
                code: PushLintCode.apsAlertNothingToShow,
                message: "an alert push needs alert, sound or badge; for a silent update use apns-push-type background",
                path: APNsPayloadKey.aps))
        }
    }

    private static func lintBackgroundPush(_ aps: JSONShallowObject, into warnings: inout [PushLintWarning]) {
        for key in [APNsPayloadKey.alert, APNsPayloadKey.sound, APNsPayloadKey.badge] where aps[key] != nil {
            warnings.append(PushLintWarning(
                code: PushLintCode.apsBackgroundHasAlert,
                message: "a background push must not carry \(key); send it as an alert push instead",
                path: "aps.\(key)"))
        }
        if aps[APNsPayloadKey.contentAvailable] != .integer(1) {
            warnings.append(PushLintWarning(
                code: PushLintCode.apsBackgroundMissingContentAvailable,
                message: "a background push needs content-available: 1 to wake the app",
                path: "aps.\(APNsPayloadKey.contentAvailable)"))
        }
    }

    // MARK: Helpers

    private static func fieldType(_ path: String, _ expected: String, _ value: JSONShallowValue, into warnings: inout [PushLintWarning]) {
        warnings.append(PushLintWarning(
            code: PushLintCode.apsFieldType, message: "\(path) must be \(expected), found \(value.typeName)", path: path))
    }

    private static func fieldValue(_ path: String, _ message: String, into warnings: inout [PushLintWarning]) {
        warnings.append(PushLintWarning(code: PushLintCode.apsFieldValue, message: message, path: path))
    }
}
