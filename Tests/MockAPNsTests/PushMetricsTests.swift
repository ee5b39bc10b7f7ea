import APNsCore
import HTTPTransport
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
    @Test func rendersWhatTheTransportRefusedOrCutShort() {
        let text = PushMetrics.transportText(TransportMetrics(
            openConnections: 1, openStreams: 0, acceptedConnections: 9, rejectedConnections: 3, requests: 5,
            timedOutRequests: 2, prefaceTimeouts: 4, acceptPauses: 7))
        for line in ["apns_mock_connections_refused_total 3", "apns_mock_accept_pauses_total 7",
                     "apns_mock_preface_timeouts_total 4", "apns_mock_request_timeouts_total 2"] {
            #expect(text.split(separator: "\n").contains(Substring(line)), "\(text)")
        }
        #expect(text.contains("# TYPE apns_mock_accept_pauses_total counter\n"))
    }

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
