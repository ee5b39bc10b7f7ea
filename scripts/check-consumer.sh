#!/usr/bin/env bash
# Packaging check: a separate package depends on this one the way a team would, by a
# version tag, and its test embeds the mock (docs/embedding.md): it starts
# MockAPNsServer.startForTesting() with the bundled test material, sends a push with
# APNsClient and waits for its capture.
#
# It fails if SwiftPM refuses the dependency (for example unsafe build flags in a manifest
# older than tools version 6.2: "contains unsafe build flags"), if the bundled certificates
# are missing, or if the example stops working.
#
# The package under test is this checkout's tracked and new files, committed to a scratch
# repository and tagged with the suite's version (CLISupport's SuiteVersion); the consumer
# resolves it from a file:// URL (no network).
#
# Usage: scripts/check-consumer.sh   (KEEP=1 keeps the scratch folder)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/CLISupport/SuiteVersion.swift)
[ -n "$version" ] || { echo "check-consumer: no version in Sources/CLISupport/SuiteVersion.swift" >&2; exit 1; }
scratch=$(mktemp -d /tmp/apns-mock-consumer.XXXXXX)
[ "${KEEP:-0}" = 1 ] && echo "scratch folder: $scratch" || trap 'rm -rf "$scratch"' EXIT

# The package as it would be tagged: tracked and untracked-but-not-ignored files, symlinks kept.
mkdir "$scratch/swift-apns-mock"
git ls-files -z --cached --others --exclude-standard | tar -C "$root" --null -T - -cf - | tar -C "$scratch/swift-apns-mock" -xf -
(
    cd "$scratch/swift-apns-mock"
    git init -q && git add -A
    git -c user.name=check -c user.email=check@localhost commit -qm "package under test"
    git tag "$version"
)

mkdir -p "$scratch/consumer/Sources/PushFeature" "$scratch/consumer/Tests/PushFeatureTests"
cat > "$scratch/consumer/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "consumer",
    dependencies: [.package(url: "file://$scratch/swift-apns-mock", from: "$version")],
    targets: [
        .target(name: "PushFeature"),
        .testTarget(name: "PushFeatureTests", dependencies: [
            "PushFeature",
            .product(name: "MockAPNs", package: "swift-apns-mock"),
            .product(name: "APNsClient", package: "swift-apns-mock"),
        ]),
    ]
)
EOF
cat > "$scratch/consumer/Sources/PushFeature/PushFeature.swift" <<'EOF'
/// The consumer's own code: the payload its app expects.
public enum PushFeature {
    public static let payload = Array(#"{"aps":{"alert":"hello from a dependent package"}}"#.utf8)
}
EOF
cat > "$scratch/consumer/Tests/PushFeatureTests/EmbeddedMockTests.swift" <<'EOF'
import APNsClient
import MockAPNs
import PushFeature
import Testing

@Test func aPushReachesTheEmbeddedMock() async throws {
    let mock = try MockAPNsServer.startForTesting()
    defer { mock.stop() }
    let certificates = MockTestCertificates.bundled
    // The copy SwiftPM built beside this test binary, not the dependency's checked-out sources.
    #expect(certificates.directory.hasSuffix("_MockAPNs.resources/TestCertificates"), "\(certificates.directory)")

    var configuration = APNsClientConfiguration(authentication: try .token(
        p8Path: certificates.providerKeyPath(), keyID: MockConfiguration.defaultKeyIDs[0],
        teamID: MockConfiguration.defaultTeamID))
    configuration.sandbox = try APNsDestination(url: mock.sandboxURL)
    configuration.trustRootsPath = mock.trustRootsPath
    let client = try APNsClient(configuration: configuration)
    let response = try await client.send(
        APNsNotification(deviceToken: String(repeating: "ab", count: 32), topic: MockConfiguration.defaultBundleID,
                         payload: PushFeature.payload),
        environment: .sandbox)
    await client.shutdown()

    #expect(response.status == 200)
    let result = await mock.capture.wait(for: CaptureFilter(topic: MockConfiguration.defaultBundleID), count: 1,
                                         timeout: .seconds(5))
    #expect(result.isSatisfied)
    #expect(result.records.first?.payload == PushFeature.payload)
}
EOF

cd "$scratch/consumer"
echo "== a package depending on swift-apns-mock $version (file://$scratch/swift-apns-mock)"
swift build --build-tests > build.log 2>&1 || { tail -n 30 build.log >&2; echo "the consumer package did not build" >&2; exit 1; }
swift test --skip-build 2>&1 | tail -n 5
