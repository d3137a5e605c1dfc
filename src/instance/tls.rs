//! TLS with `--ca-cert`: the server's certificate must chain to the system's roots or to a
//! certificate in the user's PEM file, as webpki checks it, with one exception for the typical
//! lab certificate. `openssl req -x509 …` makes a self-signed certificate marked as a CA
//! (`basicConstraints CA:TRUE`), and webpki refuses any CA used as the server's own certificate
//! (`CaUsedAsEndEntity`) even when it is a trust anchor. Such a certificate is accepted only
//! when it is byte-for-byte one of the certificates in the user's file (the user pinned exactly
//! it), its validity period holds (webpki checks that before the CA flag) and it names the host
//! of the URL. Anything else is refused as before.
//!
//! ureq 3 takes no rustls verifier, so this module is the last link of the connector chain
//! (CONNECT proxy, TCP, then TLS), as ureq's own `RustlsConnector` is (ureq 3.5, its
//! `unversioned::transport` API; see algesten/ureq#1087).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_name, WebPkiServerVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{
    CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct, OtherError,
    RootCertStore, SignatureScheme, StreamOwned,
};
use std::io::{Read, Write};
use std::sync::Arc;
use ureq::unversioned::transport::{
    Buffers, ConnectProxyConnector, ConnectionDetails, Connector, Either, LazyBuffers, NextTimeout,
    TcpConnector, Transport, TransportAdapter,
};

/// The text a refused self-signed certificate carries through rustls and ureq into the
/// transport error; [`super::http`] turns it into its message.
pub const NOT_PINNED: &str = "self-signed certificate not in the --ca-cert file";

/// Accepts what webpki accepts against `roots`, plus a self-signed CA certificate presented
/// as the server's own when it is one of `pinned` and valid for the server name.
#[derive(Debug)]
struct PinnedVerifier {
    webpki: Arc<WebPkiServerVerifier>,
    /// DER of each certificate in the `--ca-cert` file.
    pinned: Vec<CertificateDer<'static>>,
}

/// The error behind [`NOT_PINNED`] (rustls shows it by `Debug`).
struct NotPinned;

impl std::fmt::Debug for NotPinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(NOT_PINNED)
    }
}

impl std::fmt::Display for NotPinned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(NOT_PINNED)
    }
}

impl std::error::Error for NotPinned {}

fn ca_used_as_end_entity(e: &rustls::Error) -> bool {
    match e {
        rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(inner))) => {
            matches!(
                inner.downcast_ref::<webpki::Error>(),
                Some(webpki::Error::CaUsedAsEndEntity)
            )
        }
        _ => false,
    }
}

impl ServerCertVerifier for PinnedVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.webpki.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(e) if ca_used_as_end_entity(&e) => {
                if !self
                    .pinned
                    .iter()
                    .any(|c| c.as_ref() == end_entity.as_ref())
                {
                    return Err(CertificateError::Other(OtherError(Arc::new(NotPinned))).into());
                }
                verify_server_name(&ParsedCertificate::try_from(end_entity)?, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }
}

/// The rustls client configuration for `roots` (system roots plus the user's file, DER) and
/// `pinned` (the user's file alone). Errors when no root parses.
fn client_config(
    roots: &[CertificateDer<'static>],
    pinned: Vec<CertificateDer<'static>>,
) -> Result<Arc<ClientConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut store = RootCertStore::empty();
    store.add_parsable_certificates(roots.iter().cloned());
    let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
        .build()
        .map_err(|e| format!("no usable root certificate: {e}"))?;
    let config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(PinnedVerifier { webpki, pinned }))
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The connector chain of an agent that trusts `roots` and the self-signed certificates in
/// `pinned` (see the module docs): ureq's CONNECT proxy and TCP connectors, then TLS.
pub fn connector(
    roots: &[CertificateDer<'static>],
    pinned: Vec<CertificateDer<'static>>,
) -> Result<impl Connector, String> {
    let tls = TlsConnector {
        config: client_config(roots, pinned)?,
    };
    Ok(
        ().chain(ConnectProxyConnector::default())
            .chain(TcpConnector::default())
            .chain(tls),
    )
}

/// Wraps the chained transport in TLS when the URL is `https` (as ureq's `RustlsConnector`).
#[derive(Debug)]
struct TlsConnector {
    config: Arc<ClientConfig>,
}

impl<In: Transport> Connector<In> for TlsConnector {
    type Out = Either<In, TlsTransport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, ureq::Error> {
        let Some(transport) = chained else {
            return Ok(None);
        };
        if !details.needs_tls() || transport.is_tls() {
            return Ok(Some(Either::A(transport)));
        }
        let host = details
            .uri
            .authority()
            .map(|a| a.host())
            .ok_or(ureq::Error::Tls("the URL has no host"))?;
        let host = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        let name = ServerName::try_from(host)
            .map_err(|_| ureq::Error::Tls("the host is not a valid TLS server name"))?
            .to_owned();
        let mut conn = ClientConnection::new(self.config.clone(), name)?;
        let mut sock = TransportAdapter::new(transport.boxed(), details.current_time.clone());
        sock.set_timeout(details.timeout);
        conn.complete_io(&mut sock)?;
        Ok(Some(Either::B(TlsTransport {
            buffers: LazyBuffers::new(
                details.config.input_buffer_size(),
                details.config.output_buffer_size(),
            ),
            stream: StreamOwned { conn, sock },
        })))
    }
}

/// An open TLS connection (as ureq's `RustlsTransport`).
struct TlsTransport {
    buffers: LazyBuffers,
    stream: StreamOwned<ClientConnection, TransportAdapter>,
}

impl std::fmt::Debug for TlsTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsTransport").finish()
    }
}

impl Transport for TlsTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.stream.get_mut().set_timeout(timeout);
        let output = &self.buffers.output()[..amount];
        self.stream.write_all(output)?;
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        self.stream.get_mut().set_timeout(timeout);
        let input = self.buffers.input_append_buf();
        let amount = self.stream.read(input)?;
        self.buffers.input_appended(amount);
        Ok(amount > 0)
    }

    fn is_open(&mut self) -> bool {
        self.stream.get_mut().get_mut().is_open()
    }

    fn is_tls(&self) -> bool {
        true
    }
}
