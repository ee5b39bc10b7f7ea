import asyncio, os
from kalyke import ApnsClient, ApnsConfig, Payload

# kalyke has no host or port setting: its base URL is a private property, replaced here.
class MockApnsClient(ApnsClient):
    _base_url = "https://localhost:" + os.environ.get("APNS_MOCK_PORT", "2197")

# kalyke's HTTP client (httpx2) reads its trust roots from SSL_CERT_FILE when it is set.
os.environ["SSL_CERT_FILE"] = "certs/ca.pem"

client = MockApnsClient(use_sandbox=False, team_id="TEAM000001", auth_key_id="ABC123DEFG",
                        auth_key_filepath="certs/AuthKey_ABC123DEFG.p8")
apns_id = asyncio.run(client.send_message(device_token="ab" * 32, payload=Payload(alert="hello from kalyke"),
                                          apns_config=ApnsConfig(topic="com.example.app")))
print(apns_id)
