package proxy

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
)

// What counts as this machine, for the rule that an allowed name never reaches the person's
// own services: besides loopback, link-local and unspecified (isLocal), every address of every
// interface — the LAN and VPN addresses a service bound to 0.0.0.0 answers on — and the whole
// range behind each bridge (docker0, virbr0, lxdbr0, cni0: the containers and machines this
// one runs). It is read when a connection is checked, so an address that came up a moment ago
// (a VPN, a new container network) counts.

// sysClassNet is where Linux describes network interfaces; an interface that is a bridge has
// a "bridge" directory there.
const sysClassNet = "/sys/class/net"

// machineNets reads this machine's addresses: each interface address on its own, and each
// bridge's whole network.
func machineNets() ([]netip.Prefix, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("reading this machine's network interfaces: %w", err)
	}
	var nets []netip.Prefix
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			return nil, fmt.Errorf("reading the addresses of %s: %w", ifc.Name, err)
		}
		_, statErr := os.Stat(filepath.Join(sysClassNet, ifc.Name, "bridge"))
		bridge := statErr == nil
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(ipn.IP)
			if !ok {
				continue
			}
			ip = ip.Unmap()
			bits := ip.BitLen()
			if bridge {
				ones, _ := ipn.Mask.Size()
				if ip.Is4() && ones > 32 {
					ones -= 96
				}
				bits = ones
			}
			if p, err := ip.Prefix(bits); err == nil {
				nets = append(nets, p)
			}
		}
	}
	return nets, nil
}

// onMachine says whether a lies in one of nets.
func onMachine(a netip.Addr, nets []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range nets {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
