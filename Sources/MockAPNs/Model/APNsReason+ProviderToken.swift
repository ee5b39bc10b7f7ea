import APNsCore
import JWTVerify

extension APNsReason {
    /// The reason APNs gives for a provider-token failure.
    public init(_ error: APNsProviderTokenError) {
        self.init(wireValue: error.reason)
    }
}
