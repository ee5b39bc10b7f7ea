// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for the suite (docs/fuzzing.md). A package of its own, so that the
// sanitizer flags never reach the normal build: `scripts/fuzz.sh` builds it with
// `-Xswiftc -sanitize=fuzzer,address`, which instruments the suite's modules as well, and
// libFuzzer's runtime (the toolchain's own) runs each target through `LLVMFuzzerRunDriver`.

let package = Package(
    name: "apns-mock-fuzz",
    // The suite, through the link `swift-apns-mock` -> `..`: a package's identity is its
    // folder's name, and the checkout's own (say `fuzz`) could clash with this package's.
    dependencies: [.package(path: "swift-apns-mock")],
    targets: [
        .target(name: "CFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzer", .product(name: "HTTPTransport", package: "swift-apns-mock")]
        ),
        // StrictJSON is no product of the suite; APNsCore brings it into the build.
        .executableTarget(
            name: "fuzz-json",
            dependencies: ["FuzzSupport", .product(name: "APNsCore", package: "swift-apns-mock")]
        ),
        .executableTarget(
            name: "fuzz-jwt",
            dependencies: ["FuzzSupport", .product(name: "JWTVerify", package: "swift-apns-mock")]
        ),
        .executableTarget(
            name: "fuzz-push",
            dependencies: [
                "FuzzSupport",
                .product(name: "MockAPNs", package: "swift-apns-mock"),
                .product(name: "JWTVerify", package: "swift-apns-mock"),
                .product(name: "HTTPTransport", package: "swift-apns-mock"),
            ]
        ),
        .executableTarget(
            name: "fuzz-capture",
            dependencies: ["FuzzSupport", .product(name: "APNsCapture", package: "swift-apns-mock")]
        ),
        .executableTarget(
            name: "fuzz-config",
            dependencies: [
                "FuzzSupport",
                .product(name: "MockAPNs", package: "swift-apns-mock"),
                .product(name: "PushRules", package: "swift-apns-mock"),
                .product(name: "PushGateway", package: "swift-apns-mock"),
            ]
        ),
        .executableTarget(
            name: "fuzz-http1",
            dependencies: ["FuzzSupport", .product(name: "HTTPTransport", package: "swift-apns-mock")]
        ),
        .executableTarget(
            name: "fuzz-http1parser",
            dependencies: ["FuzzSupport", .product(name: "HTTPTransport", package: "swift-apns-mock")]
        ),
        .executableTarget(
            name: "fuzz-http2",
            dependencies: ["FuzzSupport", .product(name: "HTTPTransport", package: "swift-apns-mock")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
