/// The built-in ``PushHandler`` of one connection: APNs' answer to every push, by
/// ``PushValidator``'s rules (docs/fidelity.md).
///
/// Made by ``ValidatingPushHandlerFactory/makeHandler(for:)``. It keeps the connection's
/// ``ConnectionAuthState`` (the team and key a provider token bound it to, the token in
/// force), which a wrapping handler can read but not change.
///
/// A class, so that the server holds it in its existential by reference: a struct this
/// size would sit in a box of its own, checked for uniqueness on every push.
public final class ValidatingPushHandler: PushHandler {
    /// The factory whose current validator checks each push.
    private let validators: ValidatingPushHandlerFactory
    /// The connection's authentication, as the pushes so far left it.
    public private(set) var auth: ConnectionAuthState

    init(validators: ValidatingPushHandlerFactory, auth: ConnectionAuthState) {
        self.validators = validators
        self.auth = auth
    }

    /// Validates one push with the validator current when it arrives.
    @inline(__always)  // Into the witness the server calls, which would otherwise copy the decision once more.
    public func handle(_ push: PushRequest) -> PushDecision {
        var decision = PushDecision(details: PushDetails(), verdict: .accepted)
        validators.validator.validate(push, auth: &auth, into: &decision)
        return decision
    }
}
