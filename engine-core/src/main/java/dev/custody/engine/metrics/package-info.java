/**
 * Metrics of a {@link dev.custody.engine.PolicyEngine} through Micrometer:
 * {@link dev.custody.engine.metrics.EngineMetrics}, an {@link dev.custody.engine.EngineObserver} that counts
 * decisions by outcome and failure kind, per-rule matches (bounded), decision latency, bundle loads and cache
 * lookups in a {@code MeterRegistry}. Micrometer ({@code io.micrometer:micrometer-core}) is an optional dependency
 * of engine-core: a service that uses this package adds it; nothing outside this package links it.
 */
package dev.custody.engine.metrics;
