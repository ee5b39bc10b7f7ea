import os
from apns2.client import APNsClient
from apns2.credentials import TokenCredentials
from apns2.payload import Payload

# PyAPNs2 keeps its hosts and ports in class attributes: a subclass replaces them.
class MockAPNsClient(APNsClient):
    LIVE_SERVER = "localhost"
    DEFAULT_PORT = int(os.environ.get("APNS_MOCK_PORT", "2197"))

# hyper, its HTTP/2 library, loads the default trust roots, which SSL_CERT_FILE names.
os.environ["SSL_CERT_FILE"] = "certs/ca.pem"

client = MockAPNsClient(TokenCredentials("certs/AuthKey_ABC123DEFG.p8", "ABC123DEFG", "TEAM000001"))
client.send_notification("ab" * 32, Payload(alert="hello from PyAPNs2"), topic="com.example.app")
print("sent")
