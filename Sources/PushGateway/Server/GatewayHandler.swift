import APNsCore
import CLISupport
import HTTPTransport
import HermesContract
import StrictJSON

/// The gateway's HTTP side: routes, validates, authorizes and rate-limits on the event
/// loop, then hands the one APNs request to the delivery and answers from its callback.
/// Nothing reaches the delivery before authorization and the rate limits pass.
struct GatewayHandler: HTTPServerHandler {
    let authorizer: PushAuthorizer
    let limiter: GatewayRateLimiter
    let delivery: any APNsDelivering
    let metrics: GatewayMetrics
    let logger: Logger
    let topic: String
    /// The configured body limit: the transport refuses bigger bodies with 413, and the
    /// contract's parser must not refuse smaller ones with its own default.
    let maximumBodySize: Int
    let ids: APNsIDGenerator
    /// UNIX seconds, for `apns-expiration`.
    let wallClock: @Sendable () -> Int64

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        guard let route = GatewayRoute(path: request.path) else {
            respond(responder, route: nil, GatewayOutcome(code: .notFound, message: "no such endpoint; use POST /push or POST /register"))
            return
        }
        guard request.method == route.method else {
            var outcome = GatewayOutcome(code: .methodNotAllowed, message: "\(route.rawValue) answers \(route.method) only")
            outcome.allow = route.method
            respond(responder, route: route, outcome)
            return
        }
        if route == .push || route == .register, let peer = request.connection.remoteAddress,
           let limited = limiter.admit(source: ClientSource(peer)) {
            rateLimited(responder, route, by: limited, message: "too many requests from your address; try later",
                        metadata: ["gateway.source": ClientSource(peer).description])
            return
        }
        switch route {
        case .push: push(request, responder: responder)
        case .register: register(request, responder: responder)
        case .health:
            responder.respond(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: Array(#"{"status":"ok"}"#.utf8)))
        case .metrics:
            responder.respond(HTTPResponse(status: 200, text: metrics.prometheusText(), contentType: "text/plain; version=0.0.4; charset=utf-8"))
        }
    }

    /// What the transport refused before `handle` (malformed HTTP/1.1, a body or header list
    /// over its limit, a request not read whole in time, an unsupported version) is answered
    /// like any refusal: the gateway's JSON error with the transport's status and its message,
    /// which never quotes the request, counted and logged.
    func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse {
        let route = GatewayRoute(path: request.path)
        let code = Self.code(for: rejection)
        let outcome = GatewayOutcome(code: code, message: rejection.message)
        metrics.recordRequest(route, code: code)
        logger.info("request refused", metadata: ["gateway.endpoint": route?.name ?? "other", "gateway.status": String(outcome.status),
                                                  "gateway.outcome": code.rawValue])
        return outcome.response
    }

    /// The gateway's code for a transport refusal; each has the transport's status.
    static func code(for rejection: HTTPRequestRejection) -> HermesGatewayErrorCode {
        switch rejection.kind {
        case .bodyTooLarge: .bodyTooLarge
        case .headerListTooLarge: .headersTooLarge
        case .requestTimeout: .requestTimeout
        case .versionNotSupported: .httpVersionNotSupported
        default: .invalidRequest
        }
    }

    // MARK: POST /push

    private func push(_ request: HTTPRequest, responder: HTTPResponder) {
        let started = ContinuousClock.now
        let push: HermesPushRequest
        do {
            push = try HermesPushRequest(body: request.body, maximumBodySize: maximumBodySize)
        } catch .missingAuthorization {
            refuse(responder, .push, code: .missingAuthorization, message: "send `hmac` or `capability`", metadata: [:])
            return
        } catch {
            refuse(responder, .push, code: .invalidRequest, message: error.description, metadata: Self.logFields(of: error))
            return
        }
        guard let token = DeviceToken(push.deviceToken) else {
            refuse(responder, .push, code: .invalidRequest, message: "`device_token` must be hex", metadata: [:])
            return
        }
        let auth: GatewayAuthMode = push.hmac != nil ? .hmac : .capability
        var metadata: [String: String] {
            ["push.auth": auth.rawValue, "push.device": token.masked, "push.env": push.environment.rawValue, "push.type": push.type.rawValue]
        }
        if let refusal = authorizer.refusal(for: push) {
            refuse(responder, .push, code: refusal, message: Self.message(for: refusal), metadata: metadata)
            return
        }
        if let limited = limiter.admit(device: token.hex) {
            rateLimited(responder, .push, by: limited, message: limited == .device
                            ? "too many pushes to this device; try later" : "the gateway is at its push rate limit; try later",
                        metadata: metadata)
            return
        }
        let apnsRequest = GatewayAPNsRequest(
            notification: HermesNotification(type: push.type, sessionID: push.sessionID), deviceToken: token,
            topic: topic, apnsID: ids.next(), sentAt: wallClock())
        let delivery = delivery, metrics = metrics, logger = logger, environment = push.environment, type = push.type
        let forwarded = ContinuousClock.now
        // No task: the delivery calls back on the APNs connection's loop, which is this
        // request's (the gateway serves on the client's loops, and the pool keeps a push on
        // its loop); the answer is written with the loop's others at the end of its iteration.
        delivery.deliver(apnsRequest, to: environment) { result in
            let answered = ContinuousClock.now, apnsTime = forwarded.duration(to: answered)
            var outcome = GatewayOutcome(result)
            outcome.apnsTime = apnsTime
            responder.respond(outcome.response)
            metrics.recordPush(result, code: outcome.code, latency: started.duration(to: answered), apnsLatency: apnsTime)
            // Fields in key order, as the dictionary form prints them, written straight into the line.
            logger.log(level: .info, outcome.code == nil ? "push sent" : "push failed") { line in
                switch result {
                case .accepted: break
                case .rejected(let status, let reason, _):
                    line.field("apns.reason", reason.wireValue)
                    line.field("apns.status", status)
                case .unreachable(let detail):
                    line.field("apns.error", detail)
                }
                line.field("gateway.endpoint", GatewayRoute.push.name)
                line.field("gateway.outcome", outcome.code?.rawValue ?? "ok")
                line.field("gateway.status", outcome.status)
                line.field("push.apns-id", apnsRequest.apnsID)
                line.field("push.auth", auth.rawValue)
                apnsRequest.deviceToken.withMaskedUTF8 { line.field("push.device", utf8: $0) }
                line.field("push.env", environment.rawValue)
                line.field("push.type", type.rawValue)
            }
        }
    }

    // MARK: POST /register

    private func register(_ request: HTTPRequest, responder: HTTPResponder) {
        guard let issuer = authorizer.capabilityIssuer else {
            refuse(responder, .register, code: .authModeDisabled, message: "capability mode is disabled on this gateway", metadata: [:])
            return
        }
        let token: DeviceToken
        do {
            token = try HermesRegistration.deviceToken(fromRequestBody: request.body, maximumBodySize: maximumBodySize)
        } catch {
            refuse(responder, .register, code: .invalidRequest, message: error.description, metadata: Self.logFields(of: error))
            return
        }
        // Its own budget, never the pushes': anyone may call /register, and authorized
        // pushes must not be refused because strangers registered.
        if let limited = limiter.admitRegistration() {
            rateLimited(responder, .register, by: limited, message: "the gateway is at its /register rate limit; try later",
                        metadata: ["push.device": token.masked])
            return
        }
        guard let capability = try? issuer.capability(for: token) else {
            respond(responder, route: .register, GatewayOutcome(code: .apnsUnavailable, message: "could not derive a capability"))
            return
        }
        metrics.recordRequest(.register, code: nil)
        logger.info("capability issued", metadata: ["push.device": token.masked, "gateway.endpoint": "register"])
        responder.respond(HTTPResponse(status: 200, headers: ["content-type": "application/json"],
                                       body: HermesRegistration.responseBody(capability: capability)))
    }

    // MARK: Answers and logs

    private func refuse(_ responder: HTTPResponder, _ route: GatewayRoute, code: HermesGatewayErrorCode, message: String,
                        metadata: [String: String], retryAfter: Int? = nil) {
        var outcome = GatewayOutcome(code: code, message: message)
        outcome.retryAfter = retryAfter
        var fields = metadata
        fields["gateway.endpoint"] = route.name
        fields["gateway.status"] = String(outcome.status)
        fields["gateway.outcome"] = code.rawValue
        logger.info("request refused", metadata: fields)
        respond(responder, route: route, outcome)
    }

    /// A 429 with `retry-after`, logged with the limit that refused it and counted by it.
    private func rateLimited(_ responder: HTTPResponder, _ route: GatewayRoute, by limit: GatewayRateLimiter.Refusal,
                             message: String, metadata: [String: String]) {
        var fields = metadata
        fields["gateway.limit"] = limit.name
        metrics.recordRateLimited(limit)
        refuse(responder, route, code: .rateLimited, message: message, metadata: fields,
               retryAfter: limiter.retryAfterSeconds(for: limit))
    }

    private func respond(_ responder: HTTPResponder, route: GatewayRoute?, _ outcome: GatewayOutcome) {
        metrics.recordRequest(route, code: outcome.code)
        responder.respond(outcome.response)
    }

    private static func message(for refusal: HermesGatewayErrorCode) -> String {
        switch refusal {
        case .invalidHMAC: "the hmac does not match the request under the shared secret"
        case .invalidCapability: "the capability was not issued for this device token; register again"
        case .authModeDisabled: "this authorization mode is disabled on this gateway"
        default: "not authorized"
        }
    }

    /// What a log line may say about a malformed body: the field, never the value (a title
    /// that is not the fixed copy may be exactly the content that must not leak).
    private static func logFields(of error: HermesRequestError) -> [String: String] {
        switch error {
        case .malformedJSON: ["gateway.problem": "malformed_json"]
        case .notAnObject: ["gateway.problem": "not_an_object"]
        case .missingField(let field): ["gateway.problem": "missing_field", "gateway.field": field]
        case .notAString(let field): ["gateway.problem": "not_a_string", "gateway.field": field]
        case .invalidValue(let field, _): ["gateway.problem": "invalid_value", "gateway.field": field]
        case .missingAuthorization: ["gateway.problem": "missing_authorization"]
        }
    }
}

extension GatewayOutcome {
    /// The HTTP response: status, JSON body, and `retry-after`, `allow` and `server-timing` when set.
    var response: HTTPResponse {
        var headers = Self.jsonHeaders
        if let retryAfter { headers.add(name: "retry-after", value: String(retryAfter)) }
        if let allow { headers.add(name: "allow", value: allow) }
        if let apnsTime { headers.add(name: ServerTiming.name, value: ServerTiming.value(apns: apnsTime)) }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// Shared by every answer (copied on write when one adds a field): no allocation per push.
    private static let jsonHeaders: HTTPHeaders = ["content-type": "application/json"]
}
