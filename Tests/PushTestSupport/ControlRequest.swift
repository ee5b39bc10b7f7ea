import HTTPTransport

extension HTTPClientRequest {
    /// A request to apns-mock's control API that declares its body JSON, as the API requires
    /// of every PUT, POST and DELETE (415 otherwise; docs/control-api.md, "Security").
    public static func control(_ method: String, path: String, headers: HTTPHeaders = [:], body: [UInt8] = []) -> HTTPClientRequest {
        var headers = headers
        headers.add(name: "content-type", value: "application/json")
        return HTTPClientRequest(method: method, path: path, headers: headers, body: body)
    }
}
