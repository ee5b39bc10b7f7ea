// swift-tools-version:6.0
import PackageDescription

// Module layers (dependencies point down only):
//   C shims        COpenSSL, CNGHTTP2, CHTTPParser, CLinuxShims
//   transport      HTTPTransport         crypto  JWTVerify
//   APNs model / mock / client / gateway  (later issues)
//   CLIs           apns-mock, push-inspect, ...
let package = Package(
    name: "swift-apns-mock",
    products: [
        .library(name: "HTTPTransport", targets: ["HTTPTransport"]),
        .library(name: "JWTVerify", targets: ["JWTVerify"]),
        .executable(name: "apns-mock", targets: ["apns-mock"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        .systemLibrary(
            name: "CHTTPParser",
            providers: [.apt(["libhttp-parser-dev"])]
        ),
        .systemLibrary(name: "CLinuxShims"),
        .target(
            name: "HTTPTransport",
            dependencies: ["COpenSSL", "CNGHTTP2", "CHTTPParser", "CLinuxShims"]
        ),
        .target(
            name: "JWTVerify",
            dependencies: ["COpenSSL"]
        ),
        .executableTarget(
            name: "apns-mock",
            dependencies: ["HTTPTransport"]
        ),
        .executableTarget(
            name: "jwt-bench",
            dependencies: ["JWTVerify"],
            path: "Benchmarks/jwt-bench"
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: ["HTTPTransport"]
        ),
        .testTarget(
            name: "JWTVerifyTests",
            dependencies: ["JWTVerify"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
