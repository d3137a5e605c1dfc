fn main() {
    std::process::exit(netbox_lsp::cli::main());
}
