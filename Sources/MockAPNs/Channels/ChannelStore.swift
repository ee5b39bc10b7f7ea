import APNsCore
import Foundation
import Synchronization

/// The broadcast channels of both environments, shared by the channel management
/// listeners, the broadcast route of the APNs listeners, the control API and the embedding
/// API.
///
/// A channel belongs to one environment: the sandbox and production each hold at most
/// ``maximumChannelsPerEnvironment``. Deleted ids are remembered (the last
/// ``rememberedDeletions`` per environment), so that a broadcast to a deleted channel is
/// told `ChannelNotRegistered` and one to an id that never existed `BadChannelId`, as the
/// sandbox answers (docs/fidelity.md, "Broadcast channels").
///
/// ```swift
/// let channel = try mock.channels.create(bundleID: "com.example.app", environment: .sandbox,
///                                        storagePolicy: .mostRecentMessageStored)
/// ```
public final class ChannelStore: Sendable {
    /// Apple's limit: 10,000 channels per environment.
    public static let maximumChannelsPerEnvironment = 10_000
    /// How many deleted ids each environment remembers.
    public static let rememberedDeletions = 100_000

    /// What an id names in one environment.
    public enum Lookup: Sendable, Hashable {
        case active(BroadcastChannel)
        /// Deleted (among the last ``rememberedDeletions`` deletions).
        case deleted
        /// Never created here, or deleted too long ago to be remembered.
        case unknown
    }

    private struct Environment {
        var channels: [String: BroadcastChannel] = [:]
        var deleted: Set<String> = []
        /// Deletion order, to forget the oldest first.
        var deletionOrder: [String] = []
        var deletionStart = 0

        mutating func remember(deleted id: String) {
            deleted.insert(id)
            deletionOrder.append(id)
            guard deletionOrder.count - deletionStart > ChannelStore.rememberedDeletions else { return }
            deleted.remove(deletionOrder[deletionStart])
            deletionStart += 1
            // Compacted now and then, so the order array stays within twice the bound.
            if deletionStart >= ChannelStore.rememberedDeletions {
                deletionOrder.removeFirst(deletionStart)
                deletionStart = 0
            }
        }
    }

    private static func index(of environment: APNsEnvironment) -> Int {
        APNsEnvironment.allCases.firstIndex(of: environment) ?? 0
    }

    private struct State {
        /// By ``APNsEnvironment/allCases`` order, changed in place: taking an environment out
        /// of a dictionary to change it copied all its channels on every create.
        var environments = APNsEnvironment.allCases.map { _ in Environment() }
        /// Apps whose broadcast capability is off: `FeatureNotEnabled`.
        var disabledApps: Set<String> = []
    }

    private let state: Mutex<State>

    /// An empty store.
    ///
    /// - Parameter broadcastDisabledApps: apps whose broadcast capability is off.
    public init(broadcastDisabledApps: Set<String> = []) {
        state = Mutex(State(disabledApps: broadcastDisabledApps))
    }

    /// Why a channel could not be created.
    public enum CreateError: Error, Sendable, Hashable {
        /// The environment already holds ``ChannelStore/maximumChannelsPerEnvironment`` channels.
        case limitReached(Int)
        /// The id given is not well-formed base64, or is in use.
        case badID(String)
    }

    /// Creates a channel.
    ///
    /// - Parameters:
    ///   - id: the id to give it; nil makes a random one (16 bytes in base64), as APNs does.
    /// - Throws: ``CreateError/limitReached(_:)`` past 10,000 channels in the environment.
    @discardableResult
    public func create(
        bundleID: String, environment: APNsEnvironment, storagePolicy: APNsChannelStoragePolicy, id: String? = nil,
        now: Date = Date()
    ) throws(CreateError) -> BroadcastChannel {
        if let id, !ChannelID.isWellFormed(id) { throw .badID(id) }
        let index = Self.index(of: environment)
        let result: Result<BroadcastChannel, CreateError> = state.withLock { state in
            guard state.environments[index].channels.count < Self.maximumChannelsPerEnvironment else {
                return .failure(.limitReached(Self.maximumChannelsPerEnvironment))
            }
            var channelID = id ?? ChannelID.generate()
            if id != nil, state.environments[index].channels[channelID] != nil { return .failure(.badID(channelID)) }
            while state.environments[index].channels[channelID] != nil { channelID = ChannelID.generate() }
            let channel = BroadcastChannel(
                id: channelID, bundleID: bundleID, environment: environment, storagePolicy: storagePolicy, createdAt: now)
            state.environments[index].channels[channelID] = channel
            if state.environments[index].deleted.remove(channelID) != nil {
                state.environments[index].deletionOrder.removeAll { $0 == channelID }
            }
            return .success(channel)
        }
        return try result.get()
    }

    /// What `id` names in `environment`.
    public func lookup(_ id: String, environment: APNsEnvironment) -> Lookup {
        let index = Self.index(of: environment)
        return state.withLock { state in
            if let channel = state.environments[index].channels[id] { return .active(channel) }
            return state.environments[index].deleted.contains(id) ? .deleted : .unknown
        }
    }

    /// Deletes a channel; nil when `environment` has no channel `id`.
    @discardableResult
    public func delete(_ id: String, environment: APNsEnvironment) -> BroadcastChannel? {
        let index = Self.index(of: environment)
        return state.withLock { state in
            guard let channel = state.environments[index].channels.removeValue(forKey: id) else { return nil }
            state.environments[index].remember(deleted: id)
            return channel
        }
    }

    /// The channels, oldest first: of one app and one environment when given.
    public func channels(bundleID: String? = nil, environment: APNsEnvironment? = nil) -> [BroadcastChannel] {
        let all: [BroadcastChannel] = state.withLock { state in
            var found: [BroadcastChannel] = []
            for (name, space) in zip(APNsEnvironment.allCases, state.environments) where environment == nil || name == environment {
                for channel in space.channels.values where bundleID == nil || channel.bundleID == bundleID {
                    found.append(channel)
                }
            }
            return found
        }
        return all.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// How many channels `environment` holds.
    public func count(environment: APNsEnvironment) -> Int {
        let index = Self.index(of: environment)
        return state.withLock { $0.environments[index].channels.count }
    }

    /// Deletes every channel of both environments and forgets the deletions.
    public func removeAll() {
        state.withLock { $0.environments = APNsEnvironment.allCases.map { _ in Environment() } }
    }

    /// Whether `bundleID` may use broadcasts; `FeatureNotEnabled` otherwise.
    public func isBroadcastEnabled(for bundleID: String) -> Bool {
        state.withLock { !$0.disabledApps.contains(bundleID) }
    }

    /// The apps whose broadcast capability is off.
    public var broadcastDisabledApps: Set<String> { state.withLock { $0.disabledApps } }

    /// Replaces the apps whose broadcast capability is off.
    public func replaceBroadcastDisabledApps(_ apps: Set<String>) {
        state.withLock { $0.disabledApps = apps }
    }

    /// Turns an app's broadcast capability on or off.
    public func setBroadcastEnabled(_ enabled: Bool, for bundleID: String) {
        state.withLock { state in
            if enabled { state.disabledApps.remove(bundleID) } else { state.disabledApps.insert(bundleID) }
        }
    }
}
