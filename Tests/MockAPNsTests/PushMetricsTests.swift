import APNsCore
import MockAPNs
import Testing

@Suite struct PushMetricsTests {
    @Test func countsByEnvironmentOutcomeAndReasonInPrometheusFormat() {
        let metrics = PushMetrics()
        metrics.recordPush(environment: .production, reason: nil, latency: .microseconds(80))
        metrics.recordPush(environment: .production, reason: nil, latency: .milliseconds(3))
        metrics.recordPush(environment: .sandbox, reason: .badDeviceToken, latency: .microseconds(90))
        metrics.recordPush(environment: .sandbox, reason: .unknown("Novel"), latency: .seconds(9))
        metrics.connectionOpened()
        metrics.connectionOpened()
        metrics.connectionClosed()

        let text = metrics.prometheusText()
        #expect(text.contains(#"apns_mock_pushes_total{environment="production",outcome="accepted",reason=""} 2"#))
        #expect(text.contains(#"apns_mock_pushes_total{environment="sandbox",outcome="rejected",reason="BadDeviceToken"} 1"#))
        #expect(text.contains(#"apns_mock_pushes_total{environment="sandbox",outcome="rejected",reason="other"} 1"#))
        #expect(text.contains("apns_mock_connections_open 1\n"))
        #expect(text.contains("apns_mock_connections_total 2\n"))
        #expect(text.contains(#"apns_mock_push_latency_seconds_bucket{le="0.0001"} 2"#))
        #expect(text.contains(#"apns_mock_push_latency_seconds_bucket{le="0.005"} 3"#))
        #expect(text.contains(#"apns_mock_push_latency_seconds_bucket{le="+Inf"} 4"#))
        #expect(text.contains("apns_mock_push_latency_seconds_count 4\n"))
        #expect(metrics.acceptedPushes == 2 && metrics.rejectedPushes(.badDeviceToken) == 1)
    }
}

@Suite struct QueryParametersTests {
    @Test func splitsThePathAndDecodesFormEncoding() {
        let (path, query) = QueryParameters.split("/pushes?topic=com.example.app&since=2026-11-30T10%3A00%3A00Z&note=two+words&flag")
        #expect(path == "/pushes")
        #expect(query["topic"] == "com.example.app")
        #expect(query["since"] == "2026-11-30T10:00:00Z")
        #expect(query["note"] == "two words")
        #expect(query["flag"] == "")
        #expect(query["missing"] == nil)
        #expect(QueryParameters.split("/healthz").path == "/healthz")
        #expect(QueryParameters("a=%zz")["a"] == "%zz")
    }
}
