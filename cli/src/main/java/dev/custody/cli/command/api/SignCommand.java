package dev.custody.cli.command.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.custody.cli.ExitCode;
import dev.custody.client.CustodyClient;
import dev.custody.client.model.SignMessageRequest;
import dev.custody.client.model.SignSubmission;
import dev.custody.client.model.SignatureStatus;
import dev.custody.client.model.TransactionStatus;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code custody api sign message|typed-data|raw}: web3 signing requests. Each request carries an
 * {@code X-Idempotency-Key} (given with {@code --idempotency-key}, else generated and printed, so a
 * rerun can reuse it); {@code --wait} polls to a terminal status per the spec's client rules and
 * exits 3 when the request ends {@code failed} or {@code rejected}, or is still pending at the
 * time-out (it is not resubmitted). Not thread-safe (picocli state).
 */
@Command(name = "sign",
        mixinStandardHelpOptions = true,
        description = "Sign a message, typed data or a raw transaction with a wallet (needs approval).",
        subcommands = {SignCommand.Message.class, SignCommand.TypedData.class, SignCommand.Raw.class},
        footerHeading = "%nExamples:%n",
        footer = {"  custody api sign message --wallet-id 5b1e… --chain-id 1 'hello' --wait",
            "  custody api sign raw --wallet-id 5b1e… --file tx.json --wait"})
final class SignCommand extends ApiGroup {

    /** Options common to the three signing commands. */
    abstract static class SignLeaf extends ApiLeaf {
        @Option(names = "--wallet-id", required = true, paramLabel = "UUID", description = "Wallet id.")
        String walletId;

        @Option(names = "--idempotency-key", paramLabel = "KEY",
                description = "X-Idempotency-Key to send (default: a new UUID, printed); reuse it to retry safely.")
        String idempotencyKey;

        @Option(names = "--wait", description = "Poll until the request is done, failed or rejected.")
        boolean await;

        @Option(names = "--wait-timeout", paramLabel = "SECONDS", defaultValue = "600",
                description = "Give up waiting after this many seconds (default: ${DEFAULT-VALUE}); the request is kept.")
        int waitTimeoutSeconds;

        String key(CustodyClient client) {
            return idempotencyKey != null ? idempotencyKey : client.newIdempotencyKey();
        }

        int printSubmission(SignSubmission submission) {
            if (json()) {
                ObjectNode node = JSON.createObjectNode();
                node.put("transaction_id", submission.transactionId());
                node.put("idempotency_key", submission.idempotencyKey());
                printJson(node);
            } else {
                printFields("transaction_id", submission.transactionId(), "idempotency_key", submission.idempotencyKey());
            }
            return ExitCode.OK;
        }

        int printSignature(SignatureStatus s, String key) {
            if (json()) {
                printJsonValue(s);
            } else {
                printFields("transaction_id", s.transactionId(), "idempotency_key", key, "status", s.status(),
                        "signature", s.signature());
            }
            return ended(s.isDone(), s.transactionId(), s.status(), null);
        }

        int printTransaction(TransactionStatus t, String key) {
            if (json()) {
                printJsonValue(t);
            } else {
                printFields("transaction_id", t.transactionId(), "idempotency_key", key, "status", t.status(),
                        "hash", t.hash(), "failed_reason", t.failedReason());
            }
            return ended(t.isDone(), t.transactionId(), t.status(), t.failedReason());
        }

        private int ended(boolean done, String transactionId, String status, String reason) {
            if (done) {
                return ExitCode.OK;
            }
            err.println("error: signing request `" + transactionId + "` ended `" + status + "`"
                    + (reason == null || reason.isBlank() ? "" : ": " + reason));
            return ExitCode.IO;
        }

        Duration timeout() {
            if (waitTimeoutSeconds < 1) {
                throw new UsageException("`--wait-timeout` must be at least 1 second");
            }
            return Duration.ofSeconds(waitTimeoutSeconds);
        }

        int signMessage(CustodyClient client, SignMessageRequest request) {
            String key = key(client);
            if (await) {
                return printSignature(client.signAndWait(walletId, request, key, timeout()), key);
            }
            return printSubmission(client.sign(walletId, request, key));
        }
    }

    /** {@code sign message --wallet-id W (--chain-id N | --solana) MESSAGE}. */
    @Command(name = "message", mixinStandardHelpOptions = true,
            description = "Sign a message: eth_sign on an EVM chain, or solana_signMessage with --solana.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api sign message --wallet-id 5b1e… --chain-id 1 'I own this wallet' --wait",
                "  custody api sign message --wallet-id 5b1e… --solana 'gm' --idempotency-key 0f0e…"})
    static final class Message extends SignLeaf {
        @Option(names = "--chain-id", paramLabel = "ID", description = "EVM chain id (eth_sign).")
        Long chainId;

        @Option(names = "--solana", description = "Sign with solana_signMessage (chain id 0).")
        boolean solana;

        @Parameters(index = "0", paramLabel = "MESSAGE", description = "The message to sign.")
        String message;

        @Override
        int run(CustodyClient client) {
            if (solana == (chainId != null)) {
                throw new UsageException("give exactly one of `--chain-id` (eth_sign) and `--solana`");
            }
            return signMessage(client, solana
                    ? SignMessageRequest.solanaSignMessage(message)
                    : SignMessageRequest.ethSign(message, chainId));
        }
    }

    /** {@code sign typed-data --wallet-id W --chain-id N --file F}: eth_signTypedData_v4. */
    @Command(name = "typed-data", mixinStandardHelpOptions = true,
            description = "Sign EIP-712 typed data (eth_signTypedData_v4) read from a JSON file with domain, types and message.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api sign typed-data --wallet-id 5b1e… --chain-id 137 --file permit.json --wait"})
    static final class TypedData extends SignLeaf {
        @Option(names = "--chain-id", required = true, paramLabel = "ID", description = "EVM chain id.")
        long chainId;

        @Option(names = "--file", required = true, paramLabel = "FILE", description = "Typed data JSON: domain, types, message.")
        Path file;

        @Override
        int run(CustodyClient client) {
            JsonNode typed = readJson(file);
            for (String field : new String[] {"domain", "types", "message"}) {
                if (!typed.isObject() || !typed.has(field)) {
                    throw new InputFileException("`" + file + "` is not typed data: it has no `" + field + "`", false, null);
                }
            }
            return signMessage(client, SignMessageRequest.typedDataV4(typed.toString(), chainId));
        }
    }

    /** {@code sign raw --wallet-id W --file F}: signRaw of an EVM or Solana transaction body. */
    @Command(name = "raw", mixinStandardHelpOptions = true,
            description = "Sign a raw transaction read from a JSON file (EVM: from, to, nonce, gasLimit, data, value, chainId, …; "
                    + "Solana: data, from, meta.tx_method, chainId). Unsafe: sign only verified payloads.",
            footerHeading = "%nExamples:%n",
            footer = {"  custody api sign raw --wallet-id 5b1e… --file erc20-transfer.json --wait"})
    static final class Raw extends SignLeaf {
        @Option(names = "--file", required = true, paramLabel = "FILE", description = "The transaction body (JSON).")
        Path file;

        @Override
        int run(CustodyClient client) {
            JsonNode body = readJson(file);
            if (!body.isObject()) {
                throw new InputFileException("`" + file + "` must hold one json object", false, null);
            }
            err.println("warning: raw signing is unsafe: sign only payloads you have verified");
            String key = key(client);
            if (await) {
                return printTransaction(client.signRawAndWait(walletId, body, key, timeout()), key);
            }
            return printSubmission(client.signRaw(walletId, body, key));
        }
    }
}
