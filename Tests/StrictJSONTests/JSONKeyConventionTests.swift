import StrictJSON
import Testing

struct JSONKeyConventionTests {
    @Test(arguments: [
        ("keyId", "key_id"), ("clientCA", "client_ca"), ("keyID", "key_id"), ("productionPort", "production_port"),
        ("dropStreamLimitAfterRejection", "drop_stream_limit_after_rejection"), ("secretBase64Length", "secret_base64_length"),
        ("requireApnsId", "require_apns_id"), ("goAway", "go_away"), ("CAFile", "ca_file"), ("host", "host"),
        ("key_id", "key_id"), ("", ""),
    ])
    func snakeCaseSplitsWordsAtCapitals(name: String, expected: String) {
        #expect(JSONKeyConvention.snakeCase(name) == expected)
    }

    @Test func renamedNamesTheKeyACamelCaseNameBecame() {
        let keys = ["key_id", "team_id", "path"]
        #expect(JSONKeyConvention.renamed("keyId", among: keys) == "key_id")
        #expect(JSONKeyConvention.renamed("teamID", among: keys) == "team_id")
    }

    @Test func renamedIsNilForATypoOrASnakeCaseName() {
        let keys = ["key_id", "team_id", "path"]
        #expect(JSONKeyConvention.renamed("kid", among: keys) == nil)
        #expect(JSONKeyConvention.renamed("keyIdx", among: keys) == nil)
        #expect(JSONKeyConvention.renamed("key_id", among: keys) == nil)
        #expect(JSONKeyConvention.renamed("Path", among: keys) == nil)
    }
}
