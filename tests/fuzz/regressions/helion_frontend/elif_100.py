import torch

import helion
import helion.language as hl


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        if x.size(0) == 0:
            out[tile] = x[tile]
        elif x.size(0) == 1:
            out[tile] = y[tile]
        elif x.size(0) == 2:
            out[tile] = y[tile]
        elif x.size(0) == 3:
            out[tile] = y[tile]
        elif x.size(0) == 4:
            out[tile] = y[tile]
        elif x.size(0) == 5:
            out[tile] = y[tile]
        elif x.size(0) == 6:
            out[tile] = y[tile]
        elif x.size(0) == 7:
            out[tile] = y[tile]
        elif x.size(0) == 8:
            out[tile] = y[tile]
        elif x.size(0) == 9:
            out[tile] = y[tile]
        elif x.size(0) == 10:
            out[tile] = y[tile]
        elif x.size(0) == 11:
            out[tile] = y[tile]
        elif x.size(0) == 12:
            out[tile] = y[tile]
        elif x.size(0) == 13:
            out[tile] = y[tile]
        elif x.size(0) == 14:
            out[tile] = y[tile]
        elif x.size(0) == 15:
            out[tile] = y[tile]
        elif x.size(0) == 16:
            out[tile] = y[tile]
        elif x.size(0) == 17:
            out[tile] = y[tile]
        elif x.size(0) == 18:
            out[tile] = y[tile]
        elif x.size(0) == 19:
            out[tile] = y[tile]
        elif x.size(0) == 20:
            out[tile] = y[tile]
        elif x.size(0) == 21:
            out[tile] = y[tile]
        elif x.size(0) == 22:
            out[tile] = y[tile]
        elif x.size(0) == 23:
            out[tile] = y[tile]
        elif x.size(0) == 24:
            out[tile] = y[tile]
        elif x.size(0) == 25:
            out[tile] = y[tile]
        elif x.size(0) == 26:
            out[tile] = y[tile]
        elif x.size(0) == 27:
            out[tile] = y[tile]
        elif x.size(0) == 28:
            out[tile] = y[tile]
        elif x.size(0) == 29:
            out[tile] = y[tile]
        elif x.size(0) == 30:
            out[tile] = y[tile]
        elif x.size(0) == 31:
            out[tile] = y[tile]
        elif x.size(0) == 32:
            out[tile] = y[tile]
        elif x.size(0) == 33:
            out[tile] = y[tile]
        elif x.size(0) == 34:
            out[tile] = y[tile]
        elif x.size(0) == 35:
            out[tile] = y[tile]
        elif x.size(0) == 36:
            out[tile] = y[tile]
        elif x.size(0) == 37:
            out[tile] = y[tile]
        elif x.size(0) == 38:
            out[tile] = y[tile]
        elif x.size(0) == 39:
            out[tile] = y[tile]
        elif x.size(0) == 40:
            out[tile] = y[tile]
        elif x.size(0) == 41:
            out[tile] = y[tile]
        elif x.size(0) == 42:
            out[tile] = y[tile]
        elif x.size(0) == 43:
            out[tile] = y[tile]
        elif x.size(0) == 44:
            out[tile] = y[tile]
        elif x.size(0) == 45:
            out[tile] = y[tile]
        elif x.size(0) == 46:
            out[tile] = y[tile]
        elif x.size(0) == 47:
            out[tile] = y[tile]
        elif x.size(0) == 48:
            out[tile] = y[tile]
        elif x.size(0) == 49:
            out[tile] = y[tile]
        elif x.size(0) == 50:
            out[tile] = y[tile]
        elif x.size(0) == 51:
            out[tile] = y[tile]
        elif x.size(0) == 52:
            out[tile] = y[tile]
        elif x.size(0) == 53:
            out[tile] = y[tile]
        elif x.size(0) == 54:
            out[tile] = y[tile]
        elif x.size(0) == 55:
            out[tile] = y[tile]
        elif x.size(0) == 56:
            out[tile] = y[tile]
        elif x.size(0) == 57:
            out[tile] = y[tile]
        elif x.size(0) == 58:
            out[tile] = y[tile]
        elif x.size(0) == 59:
            out[tile] = y[tile]
        elif x.size(0) == 60:
            out[tile] = y[tile]
        elif x.size(0) == 61:
            out[tile] = y[tile]
        elif x.size(0) == 62:
            out[tile] = y[tile]
        elif x.size(0) == 63:
            out[tile] = y[tile]
        elif x.size(0) == 64:
            out[tile] = y[tile]
        elif x.size(0) == 65:
            out[tile] = y[tile]
        elif x.size(0) == 66:
            out[tile] = y[tile]
        elif x.size(0) == 67:
            out[tile] = y[tile]
        elif x.size(0) == 68:
            out[tile] = y[tile]
        elif x.size(0) == 69:
            out[tile] = y[tile]
        elif x.size(0) == 70:
            out[tile] = y[tile]
        elif x.size(0) == 71:
            out[tile] = y[tile]
        elif x.size(0) == 72:
            out[tile] = y[tile]
        elif x.size(0) == 73:
            out[tile] = y[tile]
        elif x.size(0) == 74:
            out[tile] = y[tile]
        elif x.size(0) == 75:
            out[tile] = y[tile]
        elif x.size(0) == 76:
            out[tile] = y[tile]
        elif x.size(0) == 77:
            out[tile] = y[tile]
        elif x.size(0) == 78:
            out[tile] = y[tile]
        elif x.size(0) == 79:
            out[tile] = y[tile]
        elif x.size(0) == 80:
            out[tile] = y[tile]
        elif x.size(0) == 81:
            out[tile] = y[tile]
        elif x.size(0) == 82:
            out[tile] = y[tile]
        elif x.size(0) == 83:
            out[tile] = y[tile]
        elif x.size(0) == 84:
            out[tile] = y[tile]
        elif x.size(0) == 85:
            out[tile] = y[tile]
        elif x.size(0) == 86:
            out[tile] = y[tile]
        elif x.size(0) == 87:
            out[tile] = y[tile]
        elif x.size(0) == 88:
            out[tile] = y[tile]
        elif x.size(0) == 89:
            out[tile] = y[tile]
        elif x.size(0) == 90:
            out[tile] = y[tile]
        elif x.size(0) == 91:
            out[tile] = y[tile]
        elif x.size(0) == 92:
            out[tile] = y[tile]
        elif x.size(0) == 93:
            out[tile] = y[tile]
        elif x.size(0) == 94:
            out[tile] = y[tile]
        elif x.size(0) == 95:
            out[tile] = y[tile]
        elif x.size(0) == 96:
            out[tile] = y[tile]
        elif x.size(0) == 97:
            out[tile] = y[tile]
        elif x.size(0) == 98:
            out[tile] = y[tile]
        elif x.size(0) == 99:
            out[tile] = y[tile]
    return out
