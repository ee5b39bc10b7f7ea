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
    }

    private struct State {
        var environments: [APNsEnvironment: Environment] = [:]
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
        let result: Result<BroadcastChannel, CreateError> = state.withLock { state in
            var space = state.environments[environment] ?? Environment()
            defer { state.environments[environment] = space }
            guard space.channels.count < Self.maximumChannelsPerEnvironment else {
                return .failure(.limitReached(Self.maximumChannelsPerEnvironment))
            }
            var channelID = id ?? ChannelID.generate()
            if id != nil, space.channels[channelID] != nil { return .failure(.badID(channelID)) }
            while space.channels[channelID] != nil { channelID = ChannelID.generate() }
            let channel = BroadcastChannel(
                id: channelID, bundleID: bundleID, environment: environment, storagePolicy: storagePolicy, createdAt: now)
            space.channels[channelID] = channel
            if space.deleted.remove(channelID) != nil { space.deletionOrder.removeAll { $0 == channelID } }
            return .success(channel)
        }
        return try result.get()
    }

    /// What `id` names in `environment`.
    public func lookup(_ id: String, environment: APNsEnvironment) -> Lookup {
        state.withLock { state in
            guard let space = state.environments[environment] else { return .unknown }
            if let channel = space.channels[id] { return .active(channel) }
            return space.deleted.contains(id) ? .deleted : .unknown
        }
    }

    /// Deletes a channel; nil when `environment` has no channel `id`.
    @discardableResult
    public func delete(_ id: String, environment: APNsEnvironment) -> BroadcastChannel? {
        state.withLock { state in
            guard var space = state.environments[environment], let channel = space.channels.removeValue(forKey: id) else {
                return nil
            }
            space.deleted.insert(id)
            space.deletionOrder.append(id)
            if space.deletionOrder.count - space.deletionStart > Self.rememberedDeletions {
                space.deleted.remove(space.deletionOrder[space.deletionStart])
                space.deletionStart += 1
                // Compacted now and then, so the order array stays within twice the bound.
                if space.deletionStart >= Self.rememberedDeletions {
                    space.deletionOrder.removeFirst(space.deletionStart)
                    space.deletionStart = 0
                }
            }
            state.environments[environment] = space
            return channel
        }
    }

    /// The channels, oldest first: of one app and one environment when given.
    public func channels(bundleID: String? = nil, environment: APNsEnvironment? = nil) -> [BroadcastChannel] {
        let all: [BroadcastChannel] = state.withLock { state in
            var found: [BroadcastChannel] = []
            for (name, space) in state.environments where environment == nil || name == environment {
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
        state.withLock { $0.environments[environment]?.channels.count ?? 0 }
    }

    /// Deletes every channel of both environments and forgets the deletions.
    public func removeAll() {
        state.withLock { $0.environments = [:] }
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
