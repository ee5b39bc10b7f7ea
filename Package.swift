// swift-tools-version:6.2
import PackageDescription

// Module layers (dependencies point down only):
//   system         SystemSeam (on its C shim CSystemShims): the only place the C library
//                  is chosen; any module but HermesApp (Foundation only) may import it
//   C shims        COpenSSL, CNGHTTP2
//   transport      HTTPTransport         crypto  JWTVerify
//   APNs model / mock / client / gateway  (later issues)
//   CLIs           apns-mock, push-inspect, ...
// Loop-confined classes on the per-request path pay for dynamic exclusivity checks on
// every property access (+8% instructions per push in the mock and the gateway); release
// builds of the hot-path modules skip them. Debug builds (and so `swift test`) keep the
// checks on. It takes an unsafe flag, which SwiftPM accepts in a package used as a
// versioned dependency only from tools version 6.2 on (hence the first line);
// scripts/check-consumer.sh checks that a dependent package builds.
let hotPathSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "swift-apns-mock",
    products: [
        .library(name: "HTTPTransport", targets: ["HTTPTransport"]),
        .library(name: "JWTVerify", targets: ["JWTVerify"]),
        .library(name: "APNsCore", targets: ["APNsCore"]),
        .library(name: "APNsCapture", targets: ["APNsCapture"]),
        .library(name: "MockAPNs", targets: ["MockAPNs"]),
        .library(name: "MockAPNsControl", targets: ["MockAPNsControl"]),
        .library(name: "HermesContract", targets: ["HermesContract"]),
        .library(name: "HermesApp", targets: ["HermesApp"]),
        .library(name: "HermesAgent", targets: ["HermesAgent"]),
        .executable(name: "push-agent", targets: ["push-agent"]),
        .executable(name: "hermes-device", targets: ["hermes-device"]),
        .executable(name: "apns-mock", targets: ["apns-mock"]),
        .library(name: "APNsClient", targets: ["APNsClient"]),
        .executable(name: "push-send", targets: ["push-send"]),
        .library(name: "PushGateway", targets: ["PushGateway"]),
        .executable(name: "push-gateway", targets: ["push-gateway"]),
        .executable(name: "gateway-conformance", targets: ["gateway-conformance"]),
        .library(name: "PushRules", targets: ["PushRules"]),
        .executable(name: "push-inspect", targets: ["push-inspect"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["libnghttp2"])]
        ),
        // The operating-system seam (docs/ARCHITECTURE.md): SystemSeam re-exports Glibc,
        // Musl or Darwin with CSystemShims, whose header guards what only Linux or glibc has.
        .systemLibrary(name: "CSystemShims"),
        .target(name: "SystemSeam", dependencies: ["CSystemShims"]),
        .target(name: "StrictJSON"),
        .target(
            name: "OpenSSLSupport",
            dependencies: ["COpenSSL"]
        ),
        .target(
            name: "HTTPTransport",
            dependencies: ["COpenSSL", "OpenSSLSupport", "CNGHTTP2", "SystemSeam"],
            swiftSettings: hotPathSettings
        ),
        .target(
            name: "JWTVerify",
            dependencies: ["COpenSSL", "OpenSSLSupport", "StrictJSON", "APNsCore", "SystemSeam"]
        ),
        .target(name: "APNsCore", dependencies: ["StrictJSON"]),
        // The capture: records, their JSON Lines format, the in-memory store and the file.
        .target(
            name: "APNsCapture",
            dependencies: ["APNsCore", "StrictJSON", "SystemSeam"],
            swiftSettings: hotPathSettings
        ),
        .target(name: "CLISupport", dependencies: ["StrictJSON", "SystemSeam"]),
        // The Hermes wire contract, shared by the gateway, the agent and app sides and
        // push-inspect's `hermes` profile. Pure Swift, so the app side can use it anywhere.
        .target(
            name: "HermesContract",
            dependencies: ["APNsCore", "StrictJSON"]
        ),
        // Hermes' two ends. HermesApp is the iOS app's push logic: Foundation and
        // HermesContract only, so it builds on Apple platforms too. HermesAgent is the
        // plugin's logic (triggers, suppression, device store, gateway sender).
        .target(
            name: "HermesApp",
            dependencies: ["HermesContract"]
        ),
        .target(
            name: "HermesAgent",
            dependencies: ["HermesContract", "JWTVerify", "StrictJSON", "APNsCore", "SystemSeam"]
        ),
        .executableTarget(
            name: "push-agent",
            dependencies: ["HermesAgent", "HermesContract", "APNsCore", "CLISupport"]
        ),
        .executableTarget(
            name: "hermes-device",
            dependencies: ["HermesApp", "APNsCore", "CLISupport"]
        ),
        // TestCertificates is the test CA, certificates and provider keys (`certs/` links to
        // it), shipped as a resource so `MockAPNsServer.startForTesting()` works in any
        // package that depends on this one.
        .target(
            name: "MockAPNs",
            dependencies: ["APNsCapture", "HTTPTransport", "JWTVerify", "APNsCore", "StrictJSON", "OpenSSLSupport", "PushRules", "SystemSeam"],
            resources: [
                .copy("TestCertificates"),
                // The dashboard page, compiled in so the binary alone serves it (DashboardPage).
                .embedInCode("Dashboard/index.html"), .embedInCode("Dashboard/dashboard.js"),
                .embedInCode("Dashboard/render.js"), .embedInCode("Dashboard/dashboard.css"),
            ],
            swiftSettings: hotPathSettings
        ),
        // A typed client for the mock's control API, for tests and tools that drive a mock.
        .target(
            name: "MockAPNsControl",
            dependencies: ["APNsCapture", "HTTPTransport", "StrictJSON", "APNsCore"]
        ),
        .executableTarget(
            name: "apns-mock",
            dependencies: ["MockAPNs", "CLISupport"]
        ),
        // APNs client (issue 6): library, CLI, benchmark.
        .target(
            name: "APNsClient",
            dependencies: ["HTTPTransport", "JWTVerify", "APNsCore", "StrictJSON"]
        ),
        .executableTarget(
            name: "push-send",
            dependencies: ["APNsClient", "CLISupport"]
        ),
        // The push gateway (issue 6): /push and /register in front of APNs.
        .target(
            name: "PushGateway",
            dependencies: ["HermesContract", "HTTPTransport", "JWTVerify", "APNsCore", "StrictJSON", "CLISupport", "APNsClient"]
        ),
        .executableTarget(
            name: "push-gateway",
            dependencies: ["PushGateway", "CLISupport"]
        ),
        // Judges any gateway (ours, a Cloudflare Worker) through the mock's control API.
        .target(
            name: "GatewayConformance",
            dependencies: ["HermesContract", "APNsCore", "APNsCapture", "MockAPNsControl", "StrictJSON", "JWTVerify", "PushRules"]
        ),
        .executableTarget(
            name: "gateway-conformance",
            dependencies: ["GatewayConformance", "CLISupport"]
        ),
        .testTarget(
            name: "PushGatewayTests",
            dependencies: ["PushGateway", "GatewayConformance", "APNsClient", "HermesContract", "MockAPNs", "APNsCapture", "HTTPTransport", "JWTVerify", "APNsCore",
                           "StrictJSON", "CLISupport", "PushTestSupport"]
        ),
        // push-inspect: the rules live in a library so the gateway conformance suite and the
        // mock can reuse them; the CLI only reads captures and prints reports.
        .target(
            name: "PushRules",
            dependencies: ["StrictJSON", "APNsCore", "HermesContract", "APNsCapture", "SystemSeam"]
        ),
        .executableTarget(
            name: "push-inspect",
            dependencies: ["PushRules", "APNsCapture", "MockAPNsControl", "CLISupport", "StrictJSON", "APNsCore", "SystemSeam"]
        ),
        .executableTarget(
            name: "client-bench",
            dependencies: ["APNsClient"],
            path: "Benchmarks/client-bench"
        ),
        .executableTarget(
            name: "transport-bench-server",
            dependencies: ["HTTPTransport", "APNsCore"],
            path: "Benchmarks/transport-bench-server"
        ),
        .executableTarget(
            name: "apns-client-load",
            dependencies: ["APNsClient", "APNsCore", "HermesContract"],
            path: "Benchmarks/apns-client-load"
        ),
        .executableTarget(
            name: "http1-paced-load",
            path: "Benchmarks/http1-paced-load"
        ),
        .executableTarget(
            name: "gateway-profile-server",
            dependencies: ["PushGateway", "CLISupport"],
            path: "Benchmarks/gateway-profile-server"
        ),
        .executableTarget(
            name: "hermes-bench",
            dependencies: ["HermesAgent", "HermesApp", "HermesContract", "JWTVerify"],
            path: "Benchmarks/hermes-bench"
        ),
        .executableTarget(
            name: "http1-parser-bench",
            dependencies: ["HTTPTransport"],
            path: "Benchmarks/http1-parser-bench"
        ),
        .executableTarget(
            name: "jwt-bench",
            dependencies: ["JWTVerify"],
            path: "Benchmarks/jwt-bench"
        ),
        // Helpers the test targets share (a python HTTP/2 client); not shipped.
        .target(
            name: "PushTestSupport",
            dependencies: ["HTTPTransport", "SystemSeam"],
            path: "Tests/PushTestSupport"
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: ["HTTPTransport", "PushTestSupport", "SystemSeam"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "APNsCaptureTests",
            dependencies: ["APNsCapture", "APNsCore", "StrictJSON", "PushTestSupport", "SystemSeam"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MockAPNsTests",
            dependencies: ["MockAPNs", "APNsCapture", "HTTPTransport", "JWTVerify", "APNsCore", "StrictJSON", "PushTestSupport", "SystemSeam"]
        ),
        .testTarget(
            name: "MockAPNsControlTests",
            dependencies: ["MockAPNsControl", "MockAPNs", "APNsCapture", "HTTPTransport", "JWTVerify", "APNsCore", "StrictJSON",
                           "PushTestSupport"]
        ),
        .testTarget(
            name: "APNsClientTests",
            dependencies: ["APNsClient", "MockAPNs", "HTTPTransport", "JWTVerify", "APNsCore", "StrictJSON", "PushTestSupport", "SystemSeam"]
        ),
        .testTarget(
            name: "CLISupportTests",
            dependencies: ["CLISupport", "PushTestSupport", "SystemSeam"]
        ),
        .testTarget(
            name: "APNsCoreTests",
            dependencies: ["APNsCore"]
        ),
        .testTarget(
            name: "HermesContractTests",
            dependencies: ["HermesContract", "JWTVerify"]
        ),
        .testTarget(
            name: "HermesAppTests",
            dependencies: ["HermesApp", "HermesContract", "MockAPNs", "APNsCapture", "APNsCore", "HTTPTransport", "JWTVerify", "PushTestSupport"]
        ),
        .testTarget(
            name: "HermesChainTests",
            dependencies: ["HermesAgent", "HermesApp", "HermesContract", "PushGateway", "MockAPNs", "JWTVerify", "APNsCore",
                           "CLISupport", "PushTestSupport"]
        ),
        .testTarget(
            name: "HermesAgentTests",
            dependencies: ["HermesAgent", "HermesContract", "HTTPTransport", "JWTVerify", "PushTestSupport"]
        ),
        .testTarget(
            name: "PushRulesTests",
            dependencies: ["PushRules", "HermesContract", "StrictJSON", "MockAPNs", "APNsCapture", "HTTPTransport", "JWTVerify", "PushTestSupport"]
        ),
        // The dashboard in headless chromium, driven by Selenium against the built apns-mock.
        .testTarget(
            name: "DashboardTests",
            dependencies: ["PushTestSupport"],
            exclude: ["Browser"]
        ),
        .testTarget(
            name: "SystemSeamTests",
            dependencies: ["SystemSeam"]
        ),
        .testTarget(
            name: "StrictJSONTests",
            dependencies: ["StrictJSON"]
        ),
        .testTarget(
            name: "JWTVerifyTests",
            dependencies: ["JWTVerify", "OpenSSLSupport", "StrictJSON", "PushTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
