/**
 * The custody REST API client (docs/design.md §6): {@code java.net.http} and Jackson, nothing else.
 *
 * <h2>What a user of the client sees</h2>
 * <ul>
 *   <li>{@link dev.custody.client.CustodyClient}: one method per endpoint, plus the helpers that
 *       poll a signing request or an MPC wallet creation to its end. Build one with
 *       {@link dev.custody.client.CustodyClient#builder} and share it: it is thread-safe.</li>
 *   <li>{@link dev.custody.client.CustodyClientConfig}: base URL, credentials, time-outs, retry
 *       budget; immutable, and safe to log.</li>
 *   <li>{@link dev.custody.client.ApiResponse}: a successful answer, typed and raw.</li>
 *   <li>{@link dev.custody.client.CustodyClientException} and its four kinds:
 *       {@link dev.custody.client.InvalidRequestException} (refused before sending),
 *       {@link dev.custody.client.CustodyApiException} (the server said no),
 *       {@link dev.custody.client.CustodyTransportException} (no answer),
 *       {@link dev.custody.client.CustodyTimeoutException} (polled past the deadline).</li>
 *   <li>{@link dev.custody.client.Sleeper}: how the client waits, replaceable in tests.</li>
 *   <li>the request and answer records in {@link dev.custody.client.model}.</li>
 * </ul>
 *
 * <h2>Inside (package-private)</h2>
 * <ul>
 *   <li>the transport: {@code HttpTransport} (exchange, signing headers, retries, debug lines),
 *       {@code ApiRequest} (one request as the facade describes it), {@code ResponseReader}
 *       (envelope, typed data, error mapping to {@code CustodyApiException}), {@code RequestSigner}
 *       ({@code ACCESS-SIGN}) and {@code Redactor} (the secret, the key and the signatures of the
 *       exchange, whole, in fragments or encoded, out of all text the client emits or returns);</li>
 *   <li>the poller: {@code StatusPoller} (backoff 1 s ×1.5 up to 10 s, last query at the deadline,
 *       resubmission only on 404).</li>
 * </ul>
 * Keeping them package-private keeps the secret accessor of the config, the exception constructors
 * and the signing code out of the public API.
 */
package dev.custody.client;
