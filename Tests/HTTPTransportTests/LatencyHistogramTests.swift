import HTTPTransport
import Testing

@Suite struct LatencyHistogramTests {
    @Test func bucketsAreCumulativeInTheExpositionAndOverflowOnlyCountsInInf() {
        var histogram = LatencyHistogram(bounds: [0.001, 0.01])
        histogram.record(.microseconds(500))
        histogram.record(.milliseconds(1))      // on a bound: counts in that bucket
        histogram.record(.milliseconds(5))
        histogram.record(.seconds(2))           // beyond every bound
        #expect(histogram.buckets == [2, 1])
        #expect(histogram.count == 4)
        #expect(abs(histogram.sum - 2.0065) < 1e-9)
        #expect(histogram.prometheusText(name: "x_seconds", help: "Things.") == """
            # HELP x_seconds Things.
            # TYPE x_seconds histogram
            x_seconds_bucket{le="0.001"} 2
            x_seconds_bucket{le="0.01"} 3
            x_seconds_bucket{le="+Inf"} 4
            x_seconds_sum \(histogram.sum)
            x_seconds_count 4

            """)
    }
}
