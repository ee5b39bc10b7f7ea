@_spi(Fuzzing) import HTTPTransport

extension HTTP1ParserDriver.Request {
    init(_ method: String, _ target: String, _ fields: [String], body: String = "", keepAlive: Bool = true, isUpgrade: Bool = false) {
        self.init(method: method, target: target, fields: fields, body: Array(body.utf8), keepAlive: keepAlive, isUpgrade: isUpgrade)
    }
}
