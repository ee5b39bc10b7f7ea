import JWTVerify

extension PushLintWarning {
    /// The push lint for a provider-token lint from JWTVerify, under a `token.*` code.
    public init(_ tokenWarning: APNsTokenLintWarning) {
        let code: String
        switch tokenWarning.kind {
        case .issuedAtIsString: code = PushLintCode.tokenIssuedAtString
        case .issuedAtIsFractional: code = PushLintCode.tokenIssuedAtFractional
        case .issuedAtInFuture: code = PushLintCode.tokenIssuedAtFuture
        case .typeHeaderPresent: code = PushLintCode.tokenTypeHeader
        case .unexpectedHeaderField: code = PushLintCode.tokenUnexpectedHeader
        case .unexpectedClaim: code = PushLintCode.tokenUnexpectedClaim
        // Kinds added to JWTVerify later still surface, under their own name.
        default: code = "token.\(tokenWarning.kind)"
        }
        self.init(code: code, message: tokenWarning.message)
    }
}
