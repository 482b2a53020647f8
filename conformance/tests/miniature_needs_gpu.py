"""A miniature whose import fails as harnesses' do when their package needs what this machine
lacks (not an ImportError): the command must exit 2 with one line."""

raise RuntimeError("this harness needs a GPU (CUDA_VISIBLE_DEVICES is empty)")
