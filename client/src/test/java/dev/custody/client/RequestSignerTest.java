package dev.custody.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class RequestSignerTest {
    private static final String VECTOR_HEX = "f8dea93ca5272d175244c0c2b853f1fd8d4d01f4ea99abf6d2e62dde853fd9a6";

    @Test
    void reproducesTheDesignVector() {
        RequestSigner signer = new RequestSigner("c3c6aa8121b84d3aae4a4558956ee171");
        assertEquals(VECTOR_HEX, signer.hexDigest("GET", "/api/v1/web3/wallet-detail", 1706783229L, ""));
        String header = signer.sign("GET", "/api/v1/web3/wallet-detail", 1706783229L, "");
        assertEquals(VECTOR_HEX, new String(Base64.getDecoder().decode(header), StandardCharsets.US_ASCII));
        assertEquals(Base64.getEncoder().encodeToString(VECTOR_HEX.getBytes(StandardCharsets.US_ASCII)), header);
        assertEquals(88, header.length());
    }

    @Test
    void canonicalTextHasTheFourFieldsInOrder() {
        assertEquals("method=POST&path=/api/v1/wallets&timestamp=7&body={\"a\":1}",
                RequestSigner.canonicalText("POST", "/api/v1/wallets", 7, "{\"a\":1}"));
        assertEquals("method=GET&path=/api/v1/x&timestamp=7&body=", RequestSigner.canonicalText("GET", "/api/v1/x", 7, null));
    }

    @Test
    void bodyAndMethodChangeTheSignature() {
        RequestSigner signer = new RequestSigner("s3cret");
        String a = signer.sign("POST", "/api/v1/wallets", 1, "{}");
        assertFalse(a.equals(signer.sign("POST", "/api/v1/wallets", 1, "{ }")));
        assertFalse(a.equals(signer.sign("PUT", "/api/v1/wallets", 1, "{}")));
        assertEquals(Signatures.expected("s3cret", "POST", "/api/v1/wallets", "1", "{}"), a);
    }

    @Test
    void refusesAnEmptySecretAndHidesItInToString() {
        assertThrows(IllegalArgumentException.class, () -> new RequestSigner(""));
        assertEquals("RequestSigner[secret=[redacted]]", new RequestSigner("topsecret").toString());
    }
}
